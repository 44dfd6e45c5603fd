import HeraldModel

/// An error a handler throws to answer with a status and Punchh's error shape:
/// `{"errors":{"email":["has already been taken"]}}`.
package struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status to answer with.
    package var status: HTTPStatus
    /// Messages per field (or per error code such as `invalid_signature`), in order.
    package var errors: [(field: String, messages: [String])]
    /// Extra response headers (`allow`, `retry-after`, …).
    package var headers: [(name: String, value: String)]

    /// An error with several fields.
    package init(
        _ status: HTTPStatus, errors: [(field: String, messages: [String])],
        headers: [(name: String, value: String)] = []
    ) {
        self.status = status
        self.errors = errors
        self.headers = headers
    }

    /// An error with one message on one field.
    package init(_ status: HTTPStatus, field: String, _ message: String, headers: [(name: String, value: String)] = [])
    {
        self.init(status, errors: [(field, [message])], headers: headers)
    }

    /// 400 with a message under `base`.
    package static func badRequest(_ message: String) -> HTTPError { HTTPError(.badRequest, field: "base", message) }
    /// 404 with a message under `base`.
    package static func notFound(_ message: String = "not found") -> HTTPError {
        HTTPError(.notFound, field: "base", message)
    }
    /// 422 with a message on `field`.
    package static func invalid(_ field: String, _ message: String) -> HTTPError {
        HTTPError(.unprocessableEntity, field: field, message)
    }

    /// The JSON body.
    package var body: JSON {
        .object([("errors", .object(errors.map { (key: $0.field, value: .array($0.messages.map { .string($0) })) }))])
    }

    /// The response this error answers with.
    package var response: HTTPResponse {
        var response = HTTPResponse.json(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    package var description: String {
        "\(status.code) " + errors.map { "\($0.field): \($0.messages.joined(separator: ", "))" }.joined(separator: "; ")
    }
}
