import Foundation
import HeraldHTTPServer
import HeraldEntities
import HeraldModel

/// What the admin API accepts in its fields.
enum AdminInput {
    /// A required, non-blank string of at most `max` characters, display text of `shape` (`DisplayText`) unless
    /// it is `nil` (a key, a URL: not shown to people); adds an error on `prefix + key` otherwise.
    static func requiredString(
        _ object: JSON, _ key: String, max: Int, _ errors: inout FieldErrors, prefix: String = "",
        shape: DisplayText.Shape? = .line
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
        if let shape, let problem = DisplayText.problem(trimmed, shape) {
            errors.add(prefix + key, problem)
            return nil
        }
        return trimmed
    }

    /// An optional string, one line of display text: nil when absent or null; adds an error on `key` when it is
    /// another type or not display text.
    static func optionalString(_ object: JSON, _ key: String, _ errors: inout FieldErrors) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else {
            errors.add(key, "must be a string")
            return nil
        }
        if let problem = DisplayText.problem(text, .line) {
            errors.add(key, problem)
            return nil
        }
        return text
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
