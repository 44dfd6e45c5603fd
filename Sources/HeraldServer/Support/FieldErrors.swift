import HeraldHTTP

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

    /// Throws a 422 when anything was added.
    func check(status: HTTPStatus = .unprocessableEntity) throws {
        guard errors.isEmpty else { throw HTTPError(status, errors: errors) }
    }
}
