/// Wraps request handling: runs before and after the handler, may answer on its own.
package protocol HTTPMiddleware: Sendable {
    /// Handles `request`, calling `next` to continue down the chain.
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse
    /// Sees a request the server refused before routing, and its answer (see `HTTPResponder.refused`).
    func refused(_ request: HTTPRequest, with response: HTTPResponse)
}

extension HTTPMiddleware {
    package func refused(_ request: HTTPRequest, with response: HTTPResponse) {}
}

/// A router behind a chain of middleware: what the server runs for each request.
///
/// Routing happens first, so every middleware sees `request.route`; unmatched requests still pass
/// through the chain (and are answered 404 or 405 at its end).
package struct Application: HTTPResponder {
    private let router: Router
    private let middleware: [any HTTPMiddleware]

    /// `middleware` run outermost first.
    package init(router: Router, middleware: [any HTTPMiddleware]) {
        self.router = router
        self.middleware = middleware
    }

    package func respond(to request: HTTPRequest) throws -> HTTPResponse {
        var request = request
        let handler: HTTPHandler
        switch router.match(request.method, request.rawPath) {
        case .found(let found, let pattern, let parameters):
            request.route = pattern
            request.pathParameters = parameters
            handler = found
        case .methodNotAllowed(let allowed):
            request.route = "unmatched"
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            handler = { _ in
                throw HTTPError(
                    .methodNotAllowed, field: "base", "method not allowed; allowed: \(allow)",
                    headers: [("allow", allow)])
            }
        case .notFound:
            request.route = "unmatched"
            handler = { request in throw HTTPError.notFound("no route for \(request.method) \(request.path)") }
        }
        return try run(request, from: 0, handler: handler)
    }

    /// A streaming route's consumer (`Router.stream`), opened with the route's parameters.
    package func streamedBody(for head: HTTPRequest) throws -> HTTPStreamedBody? {
        guard let route = router.opener(head.method, head.rawPath) else { return nil }
        var head = head
        head.route = route.pattern
        head.pathParameters = route.parameters
        return HTTPStreamedBody(try route.open(head))
    }

    package func isOffloaded(_ request: HTTPRequest) -> Bool { router.isOffloaded(request.method, request.rawPath) }

    package func refused(_ request: HTTPRequest, with response: HTTPResponse) {
        var request = request
        request.route = "refused"
        for middleware in middleware { middleware.refused(request, with: response) }
    }

    private func run(_ request: HTTPRequest, from index: Int, handler: HTTPHandler) throws -> HTTPResponse {
        guard index < middleware.count else { return try handler(request) }
        return try middleware[index].respond(to: request) { next in try run(next, from: index + 1, handler: handler) }
    }
}
