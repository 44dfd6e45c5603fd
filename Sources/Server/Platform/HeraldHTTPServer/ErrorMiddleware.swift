import HeraldObservability

/// An error that knows which HTTP answer it deserves (a store's "not found", say).
package protocol HTTPErrorConvertible: Error {
    /// The answer to send for this error.
    var httpError: HTTPError { get }
}

/// Turns thrown errors into JSON answers: `HTTPError` and `HTTPErrorConvertible` as they say,
/// anything else a 500 whose body names only the request id (the details go to the log).
package struct ErrorMiddleware: HTTPMiddleware {
    private let logger: Logger

    /// Logs unexpected errors to `logger`.
    package init(logger: Logger) { self.logger = logger }

    package func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        do {
            return try next(request)
        } catch {
            return Self.response(for: error, to: request, logger: logger)
        }
    }

    /// The answer `error` deserves (the server uses it too, for what a responder without this middleware throws).
    static func response(for error: any Error, to request: HTTPRequest, logger: Logger) -> HTTPResponse {
        switch error {
        case let error as HTTPError:
            return error.response
        case let error as any HTTPErrorConvertible:
            return error.httpError.response
        default:
            logger.error(
                "unhandled error", ["request.id": request.id, "http.route": request.route ?? "", "error": "\(error)"])
            return HTTPError(.internalServerError, field: "base", "internal error (request id \(request.id))").response
        }
    }
}
