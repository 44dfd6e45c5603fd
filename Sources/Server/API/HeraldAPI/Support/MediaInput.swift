import Foundation
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// Rich media iOS can attach to a notification (UNNotificationAttachment's types and sizes).
enum MediaInput {
    /// Accepted types per kind, with their size limits in bytes.
    static let limits: [(types: Set<String>, maxBytes: Int, kind: String)] = [
        (["jpg", "jpeg", "png", "gif"], 10 * 1024 * 1024, "image"),
        (["mp3", "m4a", "wav", "aiff", "aif"], 5 * 1024 * 1024, "audio"),
        (["mp4", "m4v", "mpeg", "mpg", "avi"], 50 * 1024 * 1024, "video"),
    ]

    /// Every accepted type.
    static var allTypes: [String] { limits.flatMap { $0.types }.sorted() }

    /// The size limit of `type`, or nil when iOS can't attach it.
    static func maxBytes(for type: String) -> Int? {
        limits.first { $0.types.contains(type.lowercased()) }?.maxBytes
    }

    /// Whether `text` is an absolute http(s) URL (only https when `secure`) with a host of letters, digits, dots,
    /// hyphens (or an IPv6 literal) and a valid port, without spaces or control characters, of at most 2000
    /// characters: what a phone can download an image or attachment from, and a server can post to.
    static func isWebURL(_ text: String, secure: Bool = false) -> Bool {
        guard text.count <= 2000, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && !secure), let host = components.percentEncodedHost,
            !host.isEmpty, components.port.map({ (1...65535).contains($0) }) ?? true
        else { return false }
        let isName = host.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "." || $0 == "-"
        }
        return isName || (host.hasPrefix("[") && host.hasSuffix("]"))
    }

    /// What is wrong with `url` as media a phone downloads (a picture, an attachment, a thumbnail), or nil: it must be
    /// https, as iOS's notification service extension and the SDK's card download only over https. The one exception
    /// is media `hosted` here: its links follow `--public-url`, http until that names an https address (the upload's
    /// answer and the start's log say so).
    static func urlProblem(_ url: String, hosted: Bool) -> String? {
        if isWebURL(url, secure: !hosted) { return nil }
        if isWebURL(url) { return "must be an https URL: phones download media only over https" }
        return "must be an https URL"
    }

    /// A `{url, type}` object checked: an https URL (`urlProblem`; `hosted` says whether a URL is Herald's own
    /// media) whose file name ends in `type` (or another name of the same type: `.jpeg` for `jpg`), which must be a
    /// type iOS can attach — what the push's `ab.att` tells the service extension to save the download as. (The same
    /// rule as a campaign's media, whose attachment type is its URL's suffix: `MessageMedia.attachment`.)
    static func attachment(_ value: JSON, field: String, hosted: (String) -> Bool, _ errors: inout FieldErrors)
        -> MediaAttachment?
    {
        guard case .object = value else {
            errors.add(field, "must be an object with url and type")
            return nil
        }
        guard let url = value["url"]?.stringValue else {
            errors.add(field + ".url", "must be an https URL")
            return nil
        }
        let isHosted = hosted(url)
        if let problem = urlProblem(url, hosted: isHosted) {
            errors.add(field + ".url", problem)
            return nil
        }
        guard let type = value["type"]?.stringValue?.lowercased(), let named = MediaType.named(type) else {
            errors.add(field + ".type", "must be one of: " + allTypes.joined(separator: ", "))
            return nil
        }
        // (A file hosted here is checked against its upload instead: `HostedMedia.check`.)
        guard isHosted || MessageMedia.pathExtension(of: url).flatMap(MediaType.named) == named else {
            errors.add(
                field + ".url",
                "must name a \(type) file: its name must end in ."
                    + ([named.name] + named.aliases).joined(separator: " or .")
                    + " (the type iOS saves it as)")
            return nil
        }
        return MediaAttachment(url: url, type: type)
    }
}
