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
package final class HTTPServer: Worker {
    /// Where to listen and the limits enforced.
    let configuration: Configuration
    /// What answers the requests.
    let responder: any HTTPResponder
    let logger: Logger
    private let daemon = Mutex<Daemon?>(nil)
    /// Requests received and not yet completed.
    let inFlight = Atomic<Int>(0)
    /// Signalled when the last request in flight completes while draining.
    private let drained = Drained()
    /// Set by `shutdown`: requests that arrive from then on are answered 503.
    let draining = Atomic<Bool>(false)
    /// Numbers the request ids made here.
    let requestCounter = Atomic<UInt64>(0)
    /// This server's prefix of the request ids it makes.
    let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    private let boundPort = Atomic<Int>(0)
    /// Who may hold a connection, and for how long without a request head.
    let connectionGuard: ConnectionGuard
    /// libmicrohttpd's own messages, written at most once a second (`libraryMessage`).
    let libraryMessages = LibraryMessages()
    /// Where offloaded routes run.
    let workers: WorkerPool
    /// The offloaded requests whose connection is suspended, until answered (or abandoned by a stop). Closed
    /// (nil) while the daemon stops: nothing may be suspended then.
    let suspended = Mutex<[ObjectIdentifier: Offload]?>(nil)
    /// The port bound (useful when configured with 0). Valid after `start()`.
    package var port: Int { boundPort.load(ordering: .acquiring) }

    /// A server that answers with `responder`.
    package init(configuration: Configuration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        let headTimeout = MonotonicTime.nanoseconds(configuration.headTimeout)
        connectionGuard = ConnectionGuard(
            limits: .init(
                connectionLimit: configuration.connectionLimit,
                reservedLimit: max(0, configuration.reservedConnections),
                perAddressLimit: max(1, configuration.perAddressConnectionLimit), headTimeout: headTimeout,
                shortHeadTimeout: min(headTimeout, 2_000_000_000), trustedProxies: configuration.trustedProxies))
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
    package var connectionsClosedForSlowHeads: Int { connectionGuard.reapedCount }

    /// Connections shut down to make room for a newer one when every place was taken (the one that had waited
    /// longest for its request head), since start.
    package var connectionsEvicted: Int { connectionGuard.evictedCount }

    /// Binds and starts serving. Throws if the address cannot be bound.
    package func start() throws {
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
                    + ConnectionGuard.evictionHeadroom), context)
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
    package func run() async throws {
        if daemon.withLock({ $0 }) == nil { try start() }
        await GracefulShutdown.wait()
        // On the service's own thread (`WorkerExecutor`): waiting here holds up nothing else.
        shutdown(gracePeriod: Task.isCancelled ? .zero : configuration.gracePeriod)
    }

    /// Lets in-flight requests finish (up to `gracePeriod`) while answering new ones 503, then closes everything.
    ///
    /// Not `MHD_quiesce_daemon`: with epoll and a thread pool it races a worker removing the same listen socket
    /// from its epoll set, and libmicrohttpd 0.9.75 aborts the process on the loser's ENOENT ("Failed to remove
    /// listen FD from epoll set", seen once in CI; an open defect upstream).
    package func shutdown(gracePeriod: Duration = .seconds(10)) {
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
    func completedOne() {
        if inFlight.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, draining.load(ordering: .acquiring) {
            drained.signal()
        }
    }

    /// Requests received and not yet completed.
    package var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Connections open now.
    package var openConnections: Int { connectionGuard.counts.open }

    /// Connections accepted since start.
    package var connectionsAccepted: Int { connectionGuard.acceptedCount }

    /// Offloaded requests waiting for a worker or running on one.
    package var offloadedRequests: Int { workers.pendingCount }

    /// True from the moment `shutdown` begins (new requests are answered 503 from then on) until the next `start`.
    package var isDraining: Bool { draining.load(ordering: .acquiring) }
}
