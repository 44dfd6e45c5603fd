import Foundation
import HeraldHTTP
import HeraldStore
import HeraldModel

/// What the admin API accepts in its fields.
enum AdminRules {
    /// A required, non-blank string of at most `max` characters; adds an error on `prefix + key` otherwise.
    static func requiredString(
        _ object: JSON, _ key: String, max: Int, _ errors: inout FieldErrors, prefix: String = ""
    ) -> String? {
        guard let value = object[key], !value.isNull else {
            errors.add(prefix + key, "can't be blank")
            return nil
        }
        guard let text = value.stringValue else {
            errors.add(prefix + key, "must be a string")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: " ")
        if trimmed.isEmpty {
            errors.add(prefix + key, "can't be blank")
            return nil
        }
        if trimmed.count > max {
            errors.add(prefix + key, "is too long (maximum is \(max) characters)")
            return nil
        }
        return trimmed
    }

    /// An optional string: nil when absent or null; adds an error on `key` when it is another type.
    static func optionalString(_ object: JSON, _ key: String, _ errors: inout FieldErrors) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else {
            errors.add(key, "must be a string")
            return nil
        }
        return text
    }

    /// `user_ids`: a non-empty list of at most 10,000 ids, all of them users of `businessID` (422 naming the
    /// unknown ones otherwise); the users, read once. Duplicates are dropped; order is kept.
    static func users(_ body: JSON, store: Store, businessID: Int64) throws -> [User] {
        guard let items = body["user_ids"]?.arrayValue, !items.isEmpty else {
            throw HTTPError.invalid("user_ids", "must be a non-empty list of user ids")
        }
        guard items.count <= 10_000 else { throw HTTPError.invalid("user_ids", "at most 10000 users per call") }
        var seen = Set<Int64>()
        var ids: [Int64] = []
        for item in items {
            guard let id = item.int64Value else { throw HTTPError.invalid("user_ids", "must be a list of user ids") }
            if seen.insert(id).inserted { ids.append(id) }
        }
        var users: [User] = []
        var unknown: [Int64] = []
        for id in ids {
            if let user = try store.read({ try $0.users.find(businessID: businessID, id: id) }) {
                users.append(user)
            } else {
                unknown.append(id)
            }
        }
        if !unknown.isEmpty {
            throw HTTPError.invalid(
                "user_ids", "unknown users: " + unknown.prefix(20).map(String.init).joined(separator: ", "))
        }
        return users
    }

    /// Apple's key ids and team ids: 10 upper-case letters or digits.
    static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) }
    }

    /// A bundle id: dot-separated letters, digits and hyphens.
    static func isBundleID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45
                            || $0 == 95
                    }
            }
    }
}

/// Rich media iOS can attach to a notification (UNNotificationAttachment's types and sizes).
enum MediaRules {
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
