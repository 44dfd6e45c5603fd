import HeraldHTTPServer
import HeraldModel

/// Collects what is wrong with a request's fields, to answer all of it at once:
/// 422 `{"errors":{"email":["is invalid"],"password":["is too short (minimum is 8 characters)"]}}`.
struct FieldErrors {
    private(set) var errors: [(field: String, messages: [String])] = []

    /// True when nothing was added.
    var isEmpty: Bool { errors.isEmpty }

    /// Adds `message` on `field`.
    mutating func add(_ field: String, _ message: String) {
        if let index = errors.firstIndex(where: { $0.field == field }) {
            errors[index].messages.append(message)
        } else {
            errors.append((field, [message]))
        }
    }

    /// Refuses each key of `object` not in `known`, named `prefix` + key: a field a request does not know would be
    /// a setting silently lost.
    mutating func refuseUnknown(_ object: JSON, known: Set<String>, prefix: String = "") {
        for (key, _) in object.objectValue ?? [] where !known.contains(key) {
            add(prefix + String(key.prefix(100)), "is not a field of this request")
        }
    }

    /// Throws a 422 naming each key of `object` not in `known` (see `refuseUnknown`).
    static func refusingUnknown(_ object: JSON, known: Set<String>) throws {
        var errors = FieldErrors()
        errors.refuseUnknown(object, known: known)
        try errors.check()
    }

    /// Throws a 422 when anything was added.
    func check(status: HTTPStatus = .unprocessableEntity) throws {
        guard errors.isEmpty else { throw HTTPError(status, errors: errors) }
    }
}
