import Foundation
import HeraldHTTP
import HeraldStore
import HeraldModel

/// What the admin API accepts in its fields.
enum AdminInput {
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
