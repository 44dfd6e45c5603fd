import Foundation
import HeraldHTTPServer
import Testing

extension OpenAPIValidator {
    /// What is wrong with `response` as the answer to `request` by the document (an in-process call to
    /// `HeraldApplication.responder`, which no socket carried). A file body is judged by its content type only.
    public func problems(_ request: HTTPRequest, _ response: HTTPResponse) -> [String] {
        var body: [UInt8] = []
        if case .bytes(let bytes) = response.body { body = bytes }
        return problems(
            Exchange(
                method: request.method.rawValue, target: request.target, status: response.status.code,
                contentType: response.header("content-type"), body: body))
    }

    /// Records an issue of the running test for each of `problems` (nothing outside a test).
    public static func record(_ problems: [String]) {
        for problem in problems { Issue.record(Comment(rawValue: "docs/openapi.json: \(problem)")) }
    }
}

/// A responder that hands each request to `responder` and checks its answer against `validator`, recording every
/// mismatch as an issue of the running test: the in-process path (`HeraldApplication.responder`, no socket)
/// judged as strictly as `TestHTTPClient`.
///
/// ```swift
/// let app = ValidatingResponder(herald.application.responder)
/// let response = try app.respond(to: HTTPRequest(method: .get, target: "/healthz"))
/// ```
public struct ValidatingResponder: HTTPResponder {
    /// What answers.
    public let responder: any HTTPResponder
    /// What the answers are checked against.
    public let validator: OpenAPIValidator

    /// `responder`, its answers checked against `validator` (docs/openapi.json's by default).
    public init(_ responder: any HTTPResponder, validator: OpenAPIValidator = .shared) {
        self.responder = responder
        self.validator = validator
    }

    public func respond(to request: HTTPRequest) throws -> HTTPResponse {
        let response = try responder.respond(to: request)
        OpenAPIValidator.record(validator.problems(request, response))
        return response
    }
}
