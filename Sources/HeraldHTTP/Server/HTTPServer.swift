import CMicroHTTPD
import Foundation
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: epoll, a pool of threads, keep-alive, and the limits Herald promises
/// (bodies over `maxBodySize`, or over a route's own `bodyLimit`, → 413; more than `maxHeaderCount` headers → 431;
/// idle clients dropped after `connectionTimeout`, and any client after `headTimeout` without a whole request head;
/// per-address connection limits and a reserve for `/healthz` and `/metrics`, see `ConnectionGuard`). A route registered with `Router.stream` takes its body
/// as it arrives instead, at any size, through its consumer (`HTTPResponder.streamedBody`).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), responder: app, logger: logger)
/// try server.start()   // binds now: a taken port fails here
/// print("listening on http://127.0.0.1:\(server.port)")
/// try await server.run()   // serves until asked to stop, then drains
/// ```
/// Handlers run synchronously on the pool's threads, except offloaded routes (`Router.add(…, offloaded: true)`):
/// those run on the server's worker threads (`workerThreadCount`) while their connection is suspended, so that
/// slow CPU work never holds up the other connections an HTTP thread serves.
public final class HTTPServer: Service {
    /// Where to listen and the limits to enforce.
    public struct Configuration: Sendable {
        /// Address to bind (numeric IPv4/IPv6 or a resolvable name).
        public var host: String = "127.0.0.1"
        /// Port to bind; 0 picks a free one (see `HTTPServer.port`).
        public var port: Int = 8080
        /// Bind with SO_REUSEPORT, so that other processes doing the same share the port (the kernel splits
        /// connections between them). Off: a port another socket holds is an error.
        public var reusePort = false
        /// A socket already bound and listening (`HTTPServer.listen`) to serve instead of binding `host`:`port`.
        /// The server owns it from `start()` on.
        public var listeningSocket: Int32?
        /// Threads serving connections, each with its own epoll set.
        public var threadCount: Int = max(4, ProcessInfo.processInfo.activeProcessorCount * 2)
        /// A connection idle longer than this is closed.
        public var connectionTimeout: Duration = .seconds(30)
        /// A request body must arrive within this, plus the time its bytes so far take at `minimumBodyRate`, from
        /// its request line; past that the connection is closed. A client trickling a byte now and then, never
        /// idle long enough for `connectionTimeout`, cannot hold a connection for ever, while a large upload on a
        /// slow link that keeps up the rate is not cut off.
        public var bodyTimeout: Duration = .seconds(60)
        /// Bytes a second a body must keep up beyond `bodyTimeout` (16 KiB/s: 50 MB of video in under an hour).
        public var minimumBodyRate: Int = 16 * 1024
        /// Largest accepted request body, unless `bodyLimit` names another for the request.
        public var maxBodySize: Int = 1 << 20
        /// A request's own body limit, from its method, path (as received, without the query: what the router
        /// matches, so still percent-encoded) and headers, when it is not `maxBodySize`: return nil to keep
        /// `maxBodySize`. Asked at most once per request, only for requests that carry a body, before any of it is
        /// read: an upload route can take 50 MB from an authorised caller while everything else keeps 1 MiB.
        ///
        /// ```swift
        /// configuration.bodyLimit = { method, path, header in
        ///     method == .post && path.hasSuffix("/media") && header("authorization") == expected ? 50 << 20 : nil
        /// }
        /// ```
        public var bodyLimit: @Sendable (_ method: HTTPMethod, _ path: String, _ header: (String) -> String?) -> Int? =
            {
                _, _, _ in nil
            }
        /// Most header fields accepted in one request.
        public var maxHeaderCount: Int = 100
        /// Most bytes of header fields (names and values) in a request: a JSON 431 beyond.
        public var maxHeaderBytes: Int = 32 * 1024
        /// Per-connection memory for the request head and buffers. Larger than `maxHeaderBytes`, so that heads up
        /// to it and somewhat beyond reach Herald's own JSON 431; libmicrohttpd answers a head that does not fit
        /// at all itself (with its own HTML body).
        public var connectionMemoryLimit: Int = 64 * 1024
        /// Most connections at once, besides the reserve (`reservedConnections`).
        public var connectionLimit: Int = 10_000
        /// Connections kept beyond `connectionLimit` for `reservedPaths` only: when every ordinary place is taken,
        /// a monitor still reaches `/healthz` and `/metrics`; anything else there is answered 503 with `Retry-After`.
        public var reservedConnections: Int = 64
        /// The paths a reserved connection is served for.
        public var reservedPaths: Set<String> = ["/healthz", "/metrics"]
        /// Most connections open at once from one client address; the next are answered 503 with `Retry-After`.
        public var perAddressConnectionLimit: Int = 256
        /// A connection must deliver its whole request head within this (from its accept, or from the end of the
        /// previous request when kept alive), however steadily it trickles: past it the connection is closed.
        /// Reserved and refused connections have at most 2 s.
        public var headTimeout: Duration = .seconds(10)
        /// When stopping, how long requests in flight may take to finish (new ones are answered 503 meanwhile).
        public var gracePeriod: Duration = .seconds(10)
        /// Threads running offloaded routes (`Router.add(…, offloaded: true)`), started as needed: by default one
        /// core fewer than the machine has, so that the HTTP threads always keep one.
        public var workerThreadCount: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        /// Offloaded requests waiting for a worker beyond those running; the next is answered 503 with
        /// `Retry-After` at once.
        public var workerQueueLimit: Int = 256

        /// The defaults, with any value overridden.
        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    private let configuration: Configuration
    private let responder: any HTTPResponder
    private let logger: Logger
    private let daemon = Mutex<Daemon?>(nil)
    private let inFlight = Atomic<Int>(0)
    /// Signalled when the last request in flight completes while draining.
    private let drained = Drained()
    /// Set by `shutdown`: requests that arrive from then on are answered 503.
    private let draining = Atomic<Bool>(false)
    private let requestCounter = Atomic<UInt64>(0)
    private let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    private let boundPort = Atomic<Int>(0)
    private let connectionGuard: ConnectionGuard
    /// Where offloaded routes run.
    private let workers: WorkerPool
    /// The offloaded requests whose connection is suspended, until answered (or abandoned by a stop). Closed
    /// (nil) while the daemon stops: nothing may be suspended then.
    private let suspended = Mutex<[ObjectIdentifier: Offload]?>(nil)
    /// The port bound (useful when configured with 0). Valid after `start()`.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// A server that answers with `responder`.
    public init(configuration: Configuration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        let headTimeout = MonotonicTime.nanoseconds(configuration.headTimeout)
        connectionGuard = ConnectionGuard(
            limits: .init(
                connectionLimit: configuration.connectionLimit,
                reservedLimit: max(0, configuration.reservedConnections),
                perAddressLimit: max(1, configuration.perAddressConnectionLimit), headTimeout: headTimeout,
                shortHeadTimeout: min(headTimeout, 2_000_000_000)))
        workers = WorkerPool(
            threads: configuration.workerThreadCount, queueLimit: configuration.workerQueueLimit,
            name: "herald-http-worker")
    }

    deinit {
        connectionGuard.stop()
        if let daemon = daemon.withLock({ $0 }) { stop(daemon.handle) }
        workers.stop()
    }

    /// Connections closed for taking longer than `headTimeout` over a request head, since start.
    public var connectionsClosedForSlowHeads: Int { connectionGuard.reapedCount }

    /// Connections shut down to make room for a newer one when every place was taken (the one that had waited
    /// longest for its request head), since start.
    public var connectionsEvicted: Int { connectionGuard.evictedCount }

    /// The address family of a socket.
    enum AddressFamily {
        case ipv4, ipv6

        init(socket: Int32) {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            self = Int32(address.ss_family) == AF_INET6 ? .ipv6 : .ipv4
        }
    }

    /// A TCP socket bound to `host`:`port` and listening, with SO_REUSEADDR (a restart does not wait out
    /// TIME_WAIT) and SO_REUSEPORT only when `reusePort`. A port in use, an address not on this machine or a port
    /// below 1024 without the privilege is an error naming `host:port` and the reason, in one line.
    public static func listen(host: String, port: Int, reusePort: Bool = false) throws -> Int32 {
        try listen(host: host, port: port, reusePort: reusePort).0
    }

    static func listen(host: String, port: Int, reusePort: Bool) throws -> (Int32, AddressFamily) {
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let info = result else {
            throw StartError(description: "cannot listen on \(shown): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let family = info.pointee.ai_family
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw StartError(description: "cannot listen on \(shown): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if family == AF_INET6 {
            var zero: Int32 = 0
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(descriptor, 512) == 0
        else {
            let reason = errno
            _ = close(descriptor)
            let why =
                reason == EADDRINUSE
                ? "address already in use (another herald or program holds it; --reuse-port shares it on purpose)"
                : String(cString: strerror(reason))
            throw StartError(description: "cannot listen on \(shown): \(why)")
        }
        // Every thread of the pool accepts from it: none may block there.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return (descriptor, family == AF_INET6 ? .ipv6 : .ipv4)
    }

    /// Binds and starts serving. Throws if the address cannot be bound.
    public func start() throws {
        precondition(daemon.withLock { $0 } == nil, "server already started")
        draining.store(false, ordering: .relaxed)
        let listening =
            try configuration.listeningSocket.map { ($0, AddressFamily(socket: $0)) }
            ?? Self.listen(host: configuration.host, port: configuration.port, reusePort: configuration.reusePort)
        var flags = UInt32(
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue)
        flags |= UInt32(MHD_USE_ITC.rawValue) | UInt32(MHD_USE_TURBO.rawValue)
        flags |= UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
        if listening.1 == .ipv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let timeoutSeconds = max(1, Int(configuration.connectionTimeout.components.seconds))
        let started = herald_mhd_start(
            flags, listening.0, HTTPServer.accessHandler, context, HTTPServer.completedHandler, context,
            HTTPServer.uriLogger, context, HTTPServer.connectionNotifier, context, UInt32(configuration.threadCount),
            UInt32(timeoutSeconds), configuration.connectionMemoryLimit,
            UInt32(
                configuration.connectionLimit + max(0, configuration.reservedConnections)
                    + ConnectionGuard.evictionHeadroom))
        guard let started else {
            _ = close(listening.0)
            throw StartError(description: "cannot serve on \(configuration.host):\(configuration.port)")
        }
        boundPort.store(Int(herald_mhd_bound_port(started)), ordering: .releasing)
        suspended.withLock { $0 = [:] }
        connectionGuard.start()
        daemon.withLock { $0 = Daemon(handle: started) }
    }

    /// Serves (starting first if `start` was not called) until asked to stop, then stops as `stop` does.
    public func run() async throws {
        if daemon.withLock({ $0 }) == nil { try start() }
        await GracefulShutdown.wait()
        // On the service's own thread (`ServiceExecutor`): waiting here holds up nothing else.
        shutdown(gracePeriod: Task.isCancelled ? .zero : configuration.gracePeriod)
    }

    /// Lets in-flight requests finish (up to `gracePeriod`) while answering new ones 503, then closes everything.
    ///
    /// Not `MHD_quiesce_daemon`: with epoll and a thread pool it races a worker removing the same listen socket
    /// from its epoll set, and libmicrohttpd 0.9.75 aborts the process on the loser's ENOENT ("Failed to remove
    /// listen FD from epoll set", seen once in CI; an open defect upstream).
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        guard let running = daemon.withLock({ $0 }) else { return }
        draining.store(true, ordering: .releasing)
        drained.wait(until: Date(timeIntervalSinceNow: gracePeriod / .seconds(1))) {
            inFlight.load(ordering: .acquiring) == 0
        }
        if inFlight.load(ordering: .acquiring) > 0 {
            // Offloaded requests no worker has started never will: each is answered 503 now, before the daemon
            // stops. The ones running get a moment more, so that a client whose request did its work (a sign-up
            // committed) hears so rather than seeing its connection closed.
            let offloads = suspended.withLock { $0.map { Array($0.values) } ?? [] }
            for offload in offloads { offload.abandon(onlyQueued: true) }
            drained.wait(until: Date(timeIntervalSinceNow: 1)) { inFlight.load(ordering: .acquiring) == 0 }
        }
        stop(running.handle)
        connectionGuard.stop()
        daemon.withLock { $0 = nil }
    }

    /// Stops the daemon. libmicrohttpd must not be stopped with a connection suspended: every offloaded request
    /// still waiting for its worker is abandoned (its connection answered 503 if the daemon still gets to it, and
    /// its worker's answer dropped) and resumed first.
    private func stop(_ handle: OpaquePointer) {
        let waiting = suspended.withLock { registry in
            defer { registry = nil }
            return registry.map { Array($0.values) } ?? []
        }
        for offload in waiting { offload.abandon() }
        MHD_stop_daemon(handle)
    }

    /// Where a shutdown waits for the requests in flight to finish.
    private final class Drained: @unchecked Sendable {
        // Only a condition: the count it waits on is `inFlight`, read under it.
        private let condition = NSCondition()

        func signal() {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }

        func wait(until deadline: Date, _ done: () -> Bool) {
            condition.lock()
            while !done() && condition.wait(until: deadline) {}
            condition.unlock()
        }
    }

    /// The running daemon's handle. libmicrohttpd's daemon is made for many threads: stopping it from one while its
    /// own threads serve is what `MHD_stop_daemon` is for.
    private struct Daemon: @unchecked Sendable {
        let handle: OpaquePointer
    }

    /// A request counted in flight completed (or was refused while draining).
    private func completedOne() {
        if inFlight.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, draining.load(ordering: .acquiring) {
            drained.signal()
        }
    }

    /// Requests received and not yet completed.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    // MARK: - Request lifecycle

    private final class RequestState {
        let target: String
        /// When the request line arrived (`MonotonicTime`).
        let started = MonotonicTime.now()
        var headersChecked = false
        /// Counted in `inFlight` until completed; not once refused while draining (shutdown need not wait for it).
        var counted = true
        var body: [UInt8] = []
        /// Body bytes received so far (whether kept in `body`, streamed, or discarded).
        var received = 0
        /// The body going to its route's consumer as it arrives (`HTTPResponder.streamedBody`), if it does.
        var streamed: HTTPStreamedBody?
        /// The request's body limit, worked out when it first has a body (bodiless requests never pay for it).
        var bodyLimit: Int?
        var bodyTooLarge = false
        /// The request running on a worker while its connection is suspended.
        var offload: Offload?

        init(target: String) { self.target = target }
    }

    /// An offloaded request, between its worker and the HTTP thread its connection belongs to: the worker's answer
    /// is handed over and the connection resumed under `lock`, and a stopping server abandons it under the same
    /// lock, so that a connection is resumed exactly once, and never after the daemon stopped.
    private final class Offload: @unchecked Sendable {  // `phase` is guarded by `lock`
        enum Phase {
            /// Waiting for a worker.
            case queued
            /// On a worker.
            case running
            case answered(HTTPResponse)
            /// Given up by a stopping server: answered 503, and the worker's answer (if it comes) dropped.
            case abandoned
        }

        let lock = NSLock()
        private(set) var phase = Phase.queued
        /// The suspended connection: valid until resumed.
        private let connection: OpaquePointer
        let requestID: String

        init(connection: OpaquePointer, requestID: String) {
            self.connection = connection
            self.requestID = requestID
        }

        /// Called by the worker before it runs the request: false when it is no longer wanted (abandoned by a stop
        /// before the worker got to it), and then it must not run.
        func start() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard case .queued = phase else { return false }
            phase = .running
            return true
        }

        /// Hands over `response` and resumes the connection, unless abandoned meanwhile.
        func answer(_ response: HTTPResponse) {
            lock.lock()
            defer { lock.unlock() }
            guard case .running = phase else { return }
            phase = .answered(response)
            MHD_resume_connection(connection)
        }

        /// Gives up on the worker's answer and resumes the connection, unless answered already (or, with
        /// `onlyQueued`, unless a worker has started on it).
        func abandon(onlyQueued: Bool = false) {
            lock.lock()
            defer { lock.unlock() }
            switch phase {
            case .queued: break
            case .running where !onlyQueued: break
            default: return
            }
            phase = .abandoned
            MHD_resume_connection(connection)
        }

        /// What to send now that the connection is resumed.
        var response: HTTPResponse {
            lock.lock()
            defer { lock.unlock() }
            if case .answered(let response) = phase { return response }
            var response = HTTPError(.serviceUnavailable, field: "base", "shutting down").response
            response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
            return response
        }
    }

    private static let uriLogger:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
            -> UnsafeMutableRawPointer? = { context, uri, _ in
                let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
                server.inFlight.add(1, ordering: .relaxed)
                let state = RequestState(target: uri.map { String(cString: $0) } ?? "/")
                return Unmanaged.passRetained(state).toOpaque()
            }

    private static let connectionNotifier: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let context, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let socket = herald_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            server.connectionGuard.opened(socket: socket, address: server.remoteAddress(connection) ?? "")
        } else {
            server.connectionGuard.closed(socket: socket)
        }
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { context, connection, stateSlot, _ in
        if let context, let connection {
            let socket = herald_mhd_connection_fd(connection)
            if socket >= 0 {
                Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connectionGuard.requestCompleted(
                    socket: socket)
            }
        }
        guard let stateSlot, let pointer = stateSlot.pointee else { return }
        let state = Unmanaged<RequestState>.fromOpaque(pointer)
        let counted = state.takeUnretainedValue().counted
        state.release()
        stateSlot.pointee = nil
        if counted {
            Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue().completedOne()
        }
    }

    private static let accessHandler: MHD_AccessHandlerCallback = {
        context, connection, _, method, version, uploadData, uploadSize, stateSlot in
        let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
        guard let connection, let stateSlot, let uploadSize else { return .NO }
        if stateSlot.pointee == nil {  // no URI callback happened: cannot, but never crash on it
            server.inFlight.add(1, ordering: .relaxed)
            stateSlot.pointee = Unmanaged.passRetained(RequestState(target: "/")).toOpaque()
        }
        let state = Unmanaged<RequestState>.fromOpaque(stateSlot.pointee!).takeUnretainedValue()
        return server.handle(
            connection, method: method, version: version, upload: uploadData, size: uploadSize, state: state)
    }

    private func handle(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, state: RequestState
    ) -> MHD_Result {
        if !state.headersChecked {
            state.headersChecked = true
            if draining.load(ordering: .acquiring) {
                // Not work the shutdown waits for: clients that keep calling would otherwise hold it to its grace.
                state.counted = false
                completedOne()
                var response = HTTPError(.serviceUnavailable, field: "base", "shutting down").response
                // And no next request on this connection: it closes with the server.
                response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
                return refuse(response, connection, method: method, state: state)
            }
            let socket = herald_mhd_connection_fd(connection)
            let admission = socket >= 0 ? connectionGuard.headReceived(socket: socket) : .normal
            if admission != .normal {
                let path =
                    state.target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(state.target[..<$0]) }
                    ?? state.target
                if admission == .overAddressLimit || !configuration.reservedPaths.contains(path) {
                    let why =
                        admission == .overAddressLimit
                        ? "too many connections from your address; retry later" : "server busy; retry later"
                    var response = HTTPError(.serviceUnavailable, field: "base", why).response
                    response.headers += [(name: "retry-after", value: "1"), (name: "connection", value: "close")]
                    return refuse(response, connection, method: method, state: state)
                }
            }
            // HTTP/1.1, and any later 1.x libmicrohttpd serves as 1.1 (RFC 9112 §2.6), must name its Host.
            if let version, strncmp(version, "HTTP/1.", 7) == 0, strcmp(version, "HTTP/1.0") != 0,
                MHD_lookup_connection_value(connection, .HEADER_KIND, "Host") == nil
            {
                return refuse(
                    HTTPError(.badRequest, field: "base", "an HTTP/1.1 request needs a Host header").response,
                    connection, method: method, state: state)
            }
            var head = RequestHead()
            let headerCount = withUnsafeMutablePointer(to: &head) { pointer in
                Int(MHD_get_connection_values_n(connection, .HEADER_KIND, HTTPServer.headReader, pointer))
            }
            if let tooLarge = headersTooLarge(bytes: head.bytes, count: headerCount) {
                return refuse(
                    HTTPError(.requestHeaderFieldsTooLarge, field: "base", tooLarge).response, connection,
                    method: method, state: state)
            }
            let layout = head.controlBytes ? nil : headLayout(connection, method: method, head)
            if layout == .notInPlace {
                // RFC 9112 §5.2: a server may refuse obs-fold with a 400 (libmicrohttpd 0.9.75 mangles it).
                var response =
                    HTTPError(.badRequest, field: "base", "a header field is folded over several lines").response
                response.headers.append((name: "connection", value: "close"))
                return refuse(response, connection, method: method, state: state)
            }
            if head.controlBytes || layout == .hiddenBytes {
                // A NUL would cut the value short where it is read as a C string (`Bearer <token>\0junk`:
                // libmicrohttpd hands over `Bearer <token>`, the layout check sees the rest), and no header Herald
                // reads has a use for control bytes (RFC 9110 §5.5).
                var response =
                    HTTPError(.badRequest, field: "base", "a header field value holds a control character").response
                response.headers.append((name: "connection", value: "close"))
                return refuse(response, connection, method: method, state: state)
            }
            if let framing = head.framingError {
                // Where the body ends is in doubt: a proxy in front may read it otherwise (request smuggling).
                // Answered before the body is read, so libmicrohttpd closes the connection after it.
                var response = framing.response
                response.headers.append((name: "connection", value: "close"))
                return refuse(response, connection, method: method, state: state)
            }
            let declaredLength = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap {
                HTTPHeadChecks.contentLength(String(cString: $0))
            }
            if (declaredLength ?? 0) > 0 || !head.transferEncodings.isEmpty {
                // A route taking its body as it arrives has it at any size: no body limit.
                let requestHead = requestHead(connection, method: method, state)
                do {
                    state.streamed = try responder.streamedBody(for: requestHead)
                } catch {
                    return refuse(
                        ErrorMiddleware.response(for: error, to: requestHead, logger: logger), connection,
                        method: method, state: state)
                }
            }
            if state.streamed == nil, let declared = declaredLength, declared > 0 {
                let limit = bodyLimit(of: state, method: method, connection: connection)
                if declared > limit {
                    // Answered before reading the body; libmicrohttpd then closes the connection.
                    return refuse(bodyTooLarge(limit).response, connection, method: method, state: state)
                }
                // One allocation for the whole body instead of doubling (and copying) up to it.
                state.body.reserveCapacity(min(declared, Self.largestReservation))
            }
            // Answering on this first call would make libmicrohttpd close the connection: wait for the next.
            return .YES
        }
        if size.pointee > 0 {
            state.received += size.pointee
            let received = UInt64(state.received)
            let allowed =
                MonotonicTime.nanoseconds(configuration.bodyTimeout) + received * 1_000_000_000
                / UInt64(max(1, configuration.minimumBodyRate))
            if MonotonicTime.now() - state.started > allowed {
                // libmicrohttpd takes no answer while a body is still arriving (queueing one fails): the
                // connection is closed.
                logger.notice("request body too slow; connection closed", ["target": state.target])
                return .NO
            }
            if let streamed = state.streamed, let upload {
                streamed.receive(UnsafeRawBufferPointer(start: upload, count: size.pointee))
            } else if !state.bodyTooLarge, let upload {
                if state.body.count + size.pointee > bodyLimit(of: state, method: method, connection: connection) {
                    state.bodyTooLarge = true
                    state.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: size.pointee) { bytes in
                        state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size.pointee))
                    }
                }
            }
            size.pointee = 0
            return .YES
        }
        if let offload = state.offload {
            // Resumed: the worker has answered (or the server is stopping).
            state.offload = nil
            return queue(offload.response, on: connection, requestID: offload.requestID)
        }
        if state.bodyTooLarge {
            return refuse(
                bodyTooLarge(bodyLimit(of: state, method: method, connection: connection)).response, connection,
                method: method, state: state)
        }
        var headers = HeaderCollector()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, HTTPServer.headerIterator, pointer)
        }
        let requestID = nextRequestID(headers.fields.first { $0.name == "x-request-id" }?.value)
        var request = HTTPRequest(
            method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target,
            headers: headers.fields, body: state.body, id: requestID, remoteAddress: remoteAddress(connection))
        request.streamedBody = state.streamed
        state.body = []
        state.streamed = nil
        if responder.isOffloaded(request) {
            return offload(request, connection, method: method, state: state)
        }
        let response: HTTPResponse
        do {
            response = try responder.respond(to: request)
        } catch {
            response = ErrorMiddleware.response(for: error, to: request, logger: logger)
        }
        return queue(response, on: connection, requestID: requestID)
    }

    /// Runs `request` on a worker while its connection is suspended; the worker resumes it with the answer, which
    /// is queued on the next call for the request (`handle`). With every worker busy and the queue full, a 503.
    private func offload(
        _ request: HTTPRequest, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        let offload = Offload(connection: connection, requestID: request.id)
        let key = ObjectIdentifier(offload)
        // Held until the connection is suspended: a worker done sooner waits here to resume it.
        offload.lock.lock()
        let accepted =
            suspended.withLock { registry in
                guard registry != nil else { return false }
                registry![key] = offload
                return true
            }
            && workers.submit { [self] in
                guard offload.start() else { return }
                let response: HTTPResponse
                do {
                    response = try responder.respond(to: request)
                } catch {
                    response = ErrorMiddleware.response(for: error, to: request, logger: logger)
                }
                suspended.withLock { _ = $0?.removeValue(forKey: key) }
                offload.answer(response)
            }
        if accepted {
            state.offload = offload
            MHD_suspend_connection(connection)
        }
        offload.lock.unlock()
        guard accepted else {
            suspended.withLock { _ = $0?.removeValue(forKey: key) }
            var response = HTTPError(.serviceUnavailable, field: "base", "server busy; retry later").response
            response.headers.append((name: "retry-after", value: "1"))
            responder.refused(request, with: response)
            return queue(response, on: connection, requestID: request.id)
        }
        return .YES
    }

    /// The request as its head says it, before its body: what a streaming route is opened with.
    private func requestHead(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, _ state: RequestState)
        -> HTTPRequest
    {
        var headers = HeaderCollector()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, HTTPServer.headerIterator, pointer)
        }
        return HTTPRequest(
            method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target,
            headers: headers.fields, id: nextRequestID(headers.fields.first { $0.name == "x-request-id" }?.value),
            remoteAddress: remoteAddress(connection))
    }

    /// What is wrong with a request head of `bytes` in `count` fields, if anything (a 431).
    private func headersTooLarge(bytes: Int, count: Int) -> String? {
        if bytes > configuration.maxHeaderBytes {
            return "header fields of \(bytes) bytes; at most \(configuration.maxHeaderBytes)"
        }
        if count > configuration.maxHeaderCount {
            return "too many header fields: \(count), at most \(configuration.maxHeaderCount)"
        }
        return nil
    }

    /// Sends `response` to a request refused before routing, and tells the responder (its metrics and access log).
    private func refuse(
        _ response: HTTPResponse, _ connection: OpaquePointer, method: UnsafePointer<CChar>?, state: RequestState
    ) -> MHD_Result {
        let requestID = nextRequestID(offeredRequestID(connection))
        responder.refused(
            HTTPRequest(
                method: HTTPMethod(method.map { String(cString: $0) } ?? "GET"), target: state.target, id: requestID,
                remoteAddress: remoteAddress(connection)),
            with: response)
        return queue(response, on: connection, requestID: requestID)
    }

    /// The most capacity reserved up front from a declared `Content-Length` (beyond it the body grows as it comes).
    private static let largestReservation = 64 << 20

    /// The body limit of the request: its route's own, else `maxBodySize`.
    private func bodyLimit(of state: RequestState, method: UnsafePointer<CChar>?, connection: OpaquePointer) -> Int {
        if let known = state.bodyLimit { return known }
        let target = state.target
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        let limit =
            configuration.bodyLimit(HTTPMethod(method.map { String(cString: $0) } ?? "GET"), path) { name in
                MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
            }
            ?? configuration.maxBodySize
        state.bodyLimit = limit
        return limit
    }

    private func bodyTooLarge(_ limit: Int) -> HTTPError {
        HTTPError(.payloadTooLarge, field: "base", "request body larger than \(limit) bytes")
    }

    private struct HeaderCollector {
        var fields: [(name: String, value: String)] = []
    }

    /// What the header fields say of the request head as a whole: its size and how its body is framed.
    private struct RequestHead {
        /// The fields' length (name, value, `: ` and CRLF each).
        var bytes = 0
        /// Every `Content-Length` value, comma-separated lists split.
        var contentLengths: Set<String> = []
        /// The `Transfer-Encoding` fields' values, as received.
        var transferEncodings: [String] = []
        /// Whether a value holds a control byte (NUL included; horizontal tab allowed).
        var controlBytes = false
        /// Where each field's name and value are (addresses in libmicrohttpd's buffer), in the order received.
        var placements: [HTTPHeadChecks.FieldPlacement] = []

        /// Why the body's end is ambiguous or unreadable, if it is (`HTTPHeadChecks.framingError`).
        var framingError: HTTPError? {
            HTTPHeadChecks.framingError(contentLengths: contentLengths, transferEncodings: transferEncodings)
        }
    }

    /// Whether this libmicrohttpd parses heads as `HTTPHeadChecks.layout(of:fields:)` expects (checked on 0.9.75's
    /// source); with another, the check is skipped rather than refusing requests it cannot judge.
    private static let headLayoutKnown = String(cString: MHD_get_version()) == "0.9.75"

    /// Whether the head of the request on `connection` (whose request line starts at `method`) hides bytes after a
    /// NUL in a field, or was not parsed in place (a folded line); nil when it cannot be told.
    private func headLayout(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, _ head: RequestHead)
        -> HTTPHeadChecks.Layout?
    {
        guard Self.headLayoutKnown, let method, !head.placements.isEmpty else { return nil }
        let size = herald_mhd_header_size(connection)
        guard size > 0 else { return nil }
        let start = Int(bitPattern: method)
        let fields = head.placements.map {
            HTTPHeadChecks.FieldPlacement(
                name: $0.name - start, nameCount: $0.nameCount, value: $0.value - start, valueCount: $0.valueCount)
        }
        return HTTPHeadChecks.layout(of: UnsafeRawBufferPointer(start: method, count: size), fields: fields)
    }

    /// Adds each header field to the `RequestHead` at `context`.
    private static let headReader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context, let key else { return .YES }
        let head = context.assumingMemoryBound(to: RequestHead.self)
        head.pointee.bytes += keySize + valueSize + 4
        if let value {
            if HTTPHeadChecks.hasControlBytes(UnsafeRawBufferPointer(start: value, count: valueSize)) {
                head.pointee.controlBytes = true
            }
            head.pointee.placements.append(
                HTTPHeadChecks.FieldPlacement(
                    name: Int(bitPattern: key), nameCount: keySize, value: Int(bitPattern: value),
                    valueCount: valueSize))
        }
        if strcasecmp(key, "Content-Length") == 0 {
            let text = value.map { String(cString: $0) } ?? ""
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                head.pointee.contentLengths.insert(item.trimmingCharacters(in: .whitespaces))
            }
        } else if strcasecmp(key, "Transfer-Encoding") == 0 {
            head.pointee.transferEncodings.append(value.map { String(cString: $0) } ?? "")
        }
        return .YES
    }

    private static let headerIterator: MHD_KeyValueIterator = { context, _, key, value in
        guard let context, let key else { return .YES }
        let collector = context.assumingMemoryBound(to: HeaderCollector.self)
        collector.pointee.fields.append((String(cString: key).lowercased(), value.map { String(cString: $0) } ?? ""))
        return .YES
    }

    private func offeredRequestID(_ connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, "x-request-id").map { String(cString: $0) }
    }

    private func nextRequestID(_ offered: String?) -> String {
        if let offered, !offered.isEmpty, offered.utf8.count <= 64,
            offered.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || $0 == 0x2E || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        {
            return offered
        }
        let number = requestCounter.add(1, ordering: .relaxed).newValue
        return requestIDPrefix + "-" + String(number, radix: 16)
    }

    private func remoteAddress(_ connection: OpaquePointer) -> String? {
        guard let address = herald_mhd_client_addr(connection) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var addr = ipv4.pointee.sin_addr
                guard inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return Self.string(fromCString: buffer)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var addr = ipv6.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                return Self.string(fromCString: buffer)
            }
        default:
            return nil
        }
    }

    private static func string(fromCString buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, requestID: String?) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            created = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                    MHD_ResponseMemoryMode(rawValue: 2)!)  // MHD_RESPMEM_MUST_COPY
            }
        case .file(let path, let offset, let length):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 {
                logger.error("cannot open response file", ["error": String(cString: strerror(errno))])
                return queue(
                    HTTPError(.internalServerError, field: "base", "file unavailable").response, on: connection,
                    requestID: requestID)
            }
            created = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
            if created == nil { close(descriptor) }
        }
        guard let created else { return .NO }
        if response.status == .notModified && response.header("content-length") != nil {
            _ = herald_mhd_allow_content_length(created)
        }
        for header in response.headers {
            _ = MHD_add_response_header(created, header.name, header.value)
        }
        if let requestID { _ = MHD_add_response_header(created, "x-request-id", requestID) }
        let result = MHD_queue_response(connection, UInt32(response.status.code), created)
        MHD_destroy_response(created)
        return result
    }
}
