import Foundation
import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

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

    /// A `{url, type}` object checked: an http(s) URL and a type iOS can attach.
    static func attachment(_ value: JSON, field: String, _ errors: inout FieldErrors) -> MediaAttachment? {
        guard case .object = value else {
            errors.add(field, "must be an object with url and type")
            return nil
        }
        guard let url = value["url"]?.stringValue, isWebURL(url) else {
            errors.add(field + ".url", "must be an http or https URL")
            return nil
        }
        guard let type = value["type"]?.stringValue?.lowercased(), maxBytes(for: type) != nil else {
            errors.add(field + ".type", "must be one of: " + allTypes.joined(separator: ", "))
            return nil
        }
        return MediaAttachment(url: url, type: type)
    }
}
