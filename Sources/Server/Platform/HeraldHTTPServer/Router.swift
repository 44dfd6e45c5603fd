import HeraldModel
/// Handles one request.
public protocol HTTPResponder: Sendable {
    /// Answers `request`; a thrown `HTTPError` becomes its response, anything else a 500.
    func respond(to request: HTTPRequest) throws -> HTTPResponse
    /// Told of a request the server answered itself before routing (body or headers too large, no `Host`,
    /// draining): `request` has its method, target and id, no headers or body.
    func refused(_ request: HTTPRequest, with response: HTTPResponse)
    /// Asked once a request's head is in, before any of its body is read, for requests that carry one: a body
    /// for its route's consumer to take as it arrives (then handed to `respond(to:)` in `streamedBody`), or nil to
    /// collect it whole into `body` within the body limit. Throwing answers the request at once, unread.
    func streamedBody(for head: HTTPRequest) throws -> HTTPStreamedBody?
    /// Whether `request` is answered on the server's worker threads rather than the HTTP thread it arrived on (its
    /// connection suspended meanwhile): for slow CPU work, which would otherwise hold up every other connection
    /// that thread serves. Asked once per request, when it is complete.
    func isOffloaded(_ request: HTTPRequest) -> Bool
}

extension HTTPResponder {
    public func refused(_ request: HTTPRequest, with response: HTTPResponse) {}
    public func streamedBody(for head: HTTPRequest) throws -> HTTPStreamedBody? { nil }
    public func isOffloaded(_ request: HTTPRequest) -> Bool { false }
}

/// A handler closure.
package typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Routes by method and path; `{name}` segments capture parameters.
///
/// ```swift
/// var router = Router()
/// router.get("/api2/mobile/notifications/{id}") { request in
///     .json(["id": .string(request.parameter("id")!)])
/// }
/// ```
/// Build it before the server starts; it is not changed afterwards.
package struct Router: Sendable {
    final class Node: @unchecked Sendable {  // immutable once the router is handed to a server
        var literals: [String: Node] = [:]
        var parameter: (name: String, node: Node)?
        var handlers: [HTTPMethod: (pattern: String, handler: HTTPHandler)] = [:]
        /// The routes (among `handlers`) that take their body as it arrives.
        var openers: [HTTPMethod: HTTPBodyConsumerOpener] = [:]
        /// The routes (among `handlers`) run on the server's worker threads.
        var offloaded: Set<HTTPMethod> = []
    }

    /// What a lookup found.
    package enum Match: Sendable {
        /// A route: its handler, pattern and captured parameters.
        case found(handler: HTTPHandler, pattern: String, parameters: [String: String])
        /// The path exists but not with this method.
        case methodNotAllowed(allowed: [HTTPMethod])
        /// No route has this path.
        case notFound
    }

    private let root = Node()
    /// The methods some route is offloaded for: a request of another method (every GET, in Herald) is answered
    /// without a second lookup.
    private var offloadedMethods: Set<HTTPMethod> = []

    /// An empty router.
    package init() {}

    /// Adds `handler` for `method` on `pattern` (a path whose `{name}` segments are parameters).
    ///
    /// An `offloaded` route runs on the server's worker threads (`HTTPServer.Configuration.workerThreadCount`)
    /// while its connection waits, suspended, instead of on the HTTP thread that received it: for handlers that
    /// spend long on the CPU (a password hash), which would otherwise hold up every connection that thread
    /// serves. The handler is written the same either way.
    ///
    /// ```swift
    /// router.post("/api2/mobile/users/login", offloaded: true) { request in … try passwords.verify(…) … }
    /// ```
    package mutating func add(
        _ method: HTTPMethod, _ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler
    ) {
        let node = insert(method, pattern, handler)
        if offloaded {
            node.offloaded.insert(method)
            offloadedMethods.insert(method)
        }
    }

    /// Adds a route that takes its body as it arrives, in constant memory whatever its size: `open` is called once
    /// the request's head is in (check who calls there: throwing answers before the body is read), the consumer it
    /// returns gets the body's bytes as they come, and its `finish()` answers, behind the middleware like any
    /// handler. Where the server collected the body instead (a request it thought bodiless, or a responder called
    /// directly), the consumer gets it in one piece: the route behaves the same either way.
    ///
    /// ```swift
    /// router.stream(.post, "/api/admin/businesses/{id}/users/import") { head in
    ///     try auth.authenticate(head)
    ///     return ImportConsumer(businessID: …)
    /// }
    /// ```
    package mutating func stream(_ method: HTTPMethod, _ pattern: String, _ open: @escaping HTTPBodyConsumerOpener) {
        let node = insert(method, pattern) { request in
            if let streamed = request.streamedBody { return try streamed.finish() }
            let consumer = try open(request)
            try request.body.withUnsafeBytes { try consumer.receive($0) }
            return try consumer.finish()
        }
        node.openers[method] = open
    }

    private mutating func insert(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) -> Node {
        var node = root
        for segment in pattern.split(separator: "/") {
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                if let existing = node.parameter {
                    precondition(existing.name == name, "conflicting parameter names at \(pattern)")
                    node = existing.node
                } else {
                    let child = Node()
                    node.parameter = (name, child)
                    node = child
                }
            } else {
                let key = String(segment)
                if let child = node.literals[key] {
                    node = child
                } else {
                    let child = Node()
                    node.literals[key] = child
                    node = child
                }
            }
        }
        precondition(node.handlers[method] == nil, "duplicate route \(method) \(pattern)")
        node.handlers[method] = (pattern, handler)
        return node
    }

    /// Adds a GET route (HEAD is answered by it too).
    package mutating func get(_ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler) {
        add(.get, pattern, offloaded: offloaded, handler)
    }
    /// Adds a POST route.
    package mutating func post(_ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler) {
        add(.post, pattern, offloaded: offloaded, handler)
    }
    /// Adds a PUT route.
    package mutating func put(_ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler) {
        add(.put, pattern, offloaded: offloaded, handler)
    }
    /// Adds a PATCH route.
    package mutating func patch(_ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler) {
        add(.patch, pattern, offloaded: offloaded, handler)
    }
    /// Adds a DELETE route.
    package mutating func delete(_ pattern: String, offloaded: Bool = false, _ handler: @escaping HTTPHandler) {
        add(.delete, pattern, offloaded: offloaded, handler)
    }

    /// Whether the route for `method` and `path` runs on the server's worker threads (`add(…, offloaded:)`).
    package func isOffloaded(_ method: HTTPMethod, _ path: String) -> Bool {
        guard offloadedMethods.contains(method) || (method == .head && offloadedMethods.contains(.get)) else {
            return false
        }
        var parameters: [String: String] = [:]
        guard let node = find(root, Self.segments(of: path)[...], &parameters) else { return false }
        if node.handlers[method] != nil { return node.offloaded.contains(method) }
        return method == .head && node.offloaded.contains(.get)
    }

    /// Every route, as (method, pattern), sorted: for documentation checks.
    package var routes: [(method: HTTPMethod, pattern: String)] {
        var found: [(method: HTTPMethod, pattern: String)] = []
        func walk(_ node: Node) {
            for (method, route) in node.handlers { found.append((method, route.pattern)) }
            for child in node.literals.values { walk(child) }
            if let (_, child) = node.parameter { walk(child) }
        }
        walk(root)
        return found.sorted { ($0.pattern, $0.method.rawValue) < ($1.pattern, $1.method.rawValue) }
    }

    /// Finds the route for `method` and `path` (as received: each segment is percent-decoded after the path is
    /// split, so `%2F` stays inside its segment). Literal segments win over parameters.
    package func match(_ method: HTTPMethod, _ path: String) -> Match {
        var parameters: [String: String] = [:]
        guard let node = find(root, Self.segments(of: path)[...], &parameters) else { return .notFound }
        if let route = node.handlers[method] ?? (method == .head ? node.handlers[.get] : nil) {
            return .found(handler: route.handler, pattern: route.pattern, parameters: parameters)
        }
        return node.handlers.isEmpty
            ? .notFound : .methodNotAllowed(allowed: node.handlers.keys.sorted { $0.rawValue < $1.rawValue })
    }

    /// The opener of the streaming route (`stream`) for `method` and `path`, with its pattern and parameters; nil
    /// when the route collects its body (or there is none).
    package func opener(_ method: HTTPMethod, _ path: String) -> (
        open: HTTPBodyConsumerOpener, pattern: String, parameters: [String: String]
    )? {
        var parameters: [String: String] = [:]
        guard let node = find(root, Self.segments(of: path)[...], &parameters), let open = node.openers[method],
            let route = node.handlers[method]
        else { return nil }
        return (open, route.pattern, parameters)
    }

    /// The non-empty `/`-separated segments of `path`, each percent-decoded: split on bytes, and decoded only when
    /// a segment has a `%` (no grapheme breaking or copying on the hot path).
    private static func segments(of path: String) -> [Substring] {
        var segments: [Substring] = []
        let utf8 = path.utf8
        var start = utf8.startIndex
        var index = start
        var escaped = false
        func add(_ end: String.Index) {
            guard start < end else { return }
            let segment = path[start..<end]
            segments.append(
                escaped ? Substring(QueryString.percentDecoded(String(segment), plusIsSpace: false)) : segment)
        }
        while index < utf8.endIndex {
            switch utf8[index] {
            case UInt8(ascii: "/"):
                add(index)
                start = utf8.index(after: index)
                escaped = false
            case UInt8(ascii: "%"):
                escaped = true
            default:
                break
            }
            index = utf8.index(after: index)
        }
        add(utf8.endIndex)
        return segments
    }

    private func find(_ node: Node, _ segments: ArraySlice<Substring>, _ parameters: inout [String: String]) -> Node? {
        guard let segment = segments.first else { return node.handlers.isEmpty ? nil : node }
        let rest = segments.dropFirst()
        if let child = node.literals[String(segment)], let found = find(child, rest, &parameters) {
            return found
        }
        if let (name, child) = node.parameter {
            let saved = parameters
            parameters[name] = String(segment)
            if let found = find(child, rest, &parameters) { return found }
            parameters = saved
        }
        return nil
    }
}
