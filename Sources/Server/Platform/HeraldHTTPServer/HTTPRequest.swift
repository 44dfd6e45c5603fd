import HeraldModel

/// One HTTP request as the handlers see it: parsed target, headers, the whole body.
public struct HTTPRequest: Sendable {
    /// The request method.
    package var method: HTTPMethod
    /// The request target exactly as received: path plus `?query` when there is one. Signatures cover this.
    package var target: String
    /// The percent-decoded path, without the query.
    package var path: String
    /// The path as received (still percent-encoded): routing splits it before decoding each segment, so an
    /// encoded slash stays inside its parameter.
    package var rawPath: String {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<mark])
    }
    /// The query's name/value pairs, percent-decoded, in order.
    package var query: [(name: String, value: String)]
    /// Header fields with lower-cased names, in order.
    package var headers: [(name: String, value: String)]
    /// The body bytes exactly as received (empty when its route took them as they arrived: `streamedBody`).
    package var body: [UInt8]
    /// The body given to its route's consumer as it arrived (`Router.stream`), when the server streamed it.
    package var streamedBody: HTTPStreamedBody?
    /// Values of the `{name}` segments of the matched route.
    package var pathParameters: [String: String] = [:]
    /// The pattern of the matched route (`/api2/mobile/notifications/{id}`), once routed.
    package var route: String?
    /// The request id: the client's `x-request-id` if it sent a sane one, else generated.
    package var id: String
    /// The client's address, when known: the peer's, or — from a trusted proxy (`TrustedProxies`) — the one its
    /// `Forwarded` / `X-Forwarded-For` names.
    package var remoteAddress: String?

    /// A request; `target` is split into path and query.
    package init(
        method: HTTPMethod, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        id: String = "test", remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        let (path, query) = QueryString.split(target)
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.id = id
        self.remoteAddress = remoteAddress
    }

    /// The first header named `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lowered =
            name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
        return headers.first { $0.name == lowered }?.value
    }

    /// The first query parameter named `name`.
    package func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The path parameter `name`; routing guarantees presence for the route's own parameters.
    package func parameter(_ name: String) -> String? { pathParameters[name] }

    /// The body parsed as JSON; an empty body is an empty object. Malformed JSON is a 400.
    package func jsonBody() throws(HTTPError) -> JSON {
        if body.isEmpty || body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .object([])
        }
        do {
            return try JSON.parse(body)
        } catch {
            throw HTTPError(.badRequest, field: "base", "malformed JSON: \(error.description)")
        }
    }

    /// The bearer token of the `authorization` header, if any.
    package var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces()
        return token.isEmpty ? nil : token
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
