import HeraldModel
import Dispatch
import Foundation
import Synchronization

/// An HTTP client for push gateways (APNs, FCM): HTTP/2 over TLS with many requests multiplexed on a small pool
/// of long-lived connections per origin, HTTP/1.1 for plain `http://` URLs (and TLS servers without HTTP/2).
/// Built on libnghttp2 and OpenSSL, driven by epoll from one thread per event loop
/// (``Configuration/eventLoops``); no thread and no transfer object per request.
///
/// ```swift
/// let client = try HTTP2Client(configuration: .init(extraCAFile: caFile))
/// defer { client.shutdown() }
/// let response = try await client.execute(
///     HTTPClientRequest(method: "POST", url: url, headers: headers, body: payload, timeout: .seconds(10)))
/// print(response.status, response.header("apns-id") ?? "-")
/// ```
///
/// A request waits only for a free stream: each connection carries as many as its server's
/// SETTINGS_MAX_CONCURRENT_STREAMS allows, as the server changes it, and a new connection opens (up to
/// ``Configuration/maxConnectionsPerHost``) when all are in use; a slow answer holds only its own stream.
/// What the server says is handled here, not by the caller: a stream it refused unprocessed
/// (`REFUSED_STREAM`, or above a `GOAWAY`'s last stream id) is sent again at once; a `GOAWAY` drains its
/// connection; a complete response followed by `RST_STREAM(NO_ERROR)` is a success; a connection that stops
/// answering PINGs is found dead and its requests fail with ``HTTPClientError/Code/connectionReset``.
/// ``statistics`` tells what the connections learned (e.g. a `GOAWAY(ENHANCE_YOUR_CALM)`).
package final class HTTP2Client: Sendable {
    /// The configuration the client was made with.
    package let configuration: Configuration

    private let loops: [ClientEventLoop]
    private let stopped: DispatchSemaphore
    private let nextLoop = Atomic<Int>(0)
    private let isShutDown = Atomic<Bool>(false)

    /// Creates a client and starts its event-loop threads. Throws when the trust store cannot be set up (an
    /// unreadable extra CA file, or one without a certificate).
    package init(configuration: Configuration = .init()) throws(HTTPClientError) {
        self.configuration = configuration
        let tls = try TLSContext(systemCAFile: configuration.systemCAFile, extraCAFile: configuration.extraCAFile)
        let pending = PendingCount()
        var loops: [ClientEventLoop] = []
        for _ in 0..<max(1, configuration.eventLoops) {
            loops.append(try ClientEventLoop(configuration: configuration, tls: tls, pending: pending))
        }
        let stopped = DispatchSemaphore(value: 0)
        self.loops = loops
        self.stopped = stopped
        for (index, loop) in loops.enumerated() {
            let thread = Thread { [loop, stopped] in
                loop.run()
                stopped.signal()
            }
            thread.name = loops.count == 1 ? "herald-http2" : "herald-http2-\(index)"
            thread.start()
        }
    }

    deinit {
        shutdown()
    }

    /// Sends `request`; `completion` gets the response or the error.
    ///
    /// `completion` runs on the client's thread, which drives every connection: it must return quickly and
    /// not block. A request refused before it is queued (invalid, overloaded, client shut down) completes
    /// at once on the caller's thread.
    package func execute(
        _ request: HTTPClientRequest,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        submit(request, on: pickLoop(), cancellation: nil, completion: completion)
    }

    /// Sends `request` and returns the response. Cancelling the task cancels the request
    /// (``HTTPClientError/Code/cancelled``).
    package func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let cancellation = RequestCancellation()
        let loop = pickLoop()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                submit(request, on: loop, cancellation: cancellation) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            loop.cancel(cancellation)
        }
        return try result.get()
    }

    /// Fails every queued and in-flight request with ``HTTPClientError/Code/cancelled``, closes the
    /// connections and waits for the client's threads to finish. Later requests fail at once. Idempotent: a
    /// second call returns at once. Called from a completion handler it does not wait (the thread finishes
    /// soon after the handler returns).
    package func shutdown() {
        let isFirst = !isShutDown.exchange(true, ordering: .acquiringAndReleasing)
        for loop in loops { loop.close() }
        guard isFirst, !loops.contains(where: \.isCurrentThread) else { return }
        for _ in loops { stopped.wait() }
    }

    /// From now on each origin keeps at most `count` connections (``Configuration/maxConnectionsPerHost`` until
    /// called; 0: none, and requests wait in the queue until a limit above 0 or their deadline). Connections beyond
    /// it drain, the least busy first: they take no new request and close when their last answer arrives. Herald
    /// sets it to the connections its node leases for a credential (`ConnectionBudget`).
    package func limitConnections(to count: Int) {
        for loop in loops { loop.limitConnections(to: count) }
    }

    /// Connections open now (connecting, ready or draining), over every origin and event loop: what a limit
    /// lowered by ``limitConnections(to:)`` has yet to close.
    package var openConnections: Int {
        loops.reduce(0) { $0 + $1.openConnections.load(ordering: .relaxed) }
    }

    /// The most connections open now to any one origin (over every event loop): a limit set by
    /// ``limitConnections(to:)`` holds for each origin, and this is what the busiest has yet to close down to it.
    package var openConnectionsPerOrigin: Int {
        loops.reduce(0) { $0 + $1.openConnectionsPerOrigin.load(ordering: .relaxed) }
    }

    /// Connections opened so far (attempts included).
    package var connectionsOpened: Int { statistics.connectionsOpened }

    /// What the client's connections have learned so far, over all event loops and origins.
    package var statistics: Statistics {
        var total = Statistics()
        for loop in loops { total.add(loop.currentStatistics) }
        return total
    }

    /// The loops take requests in turn.
    private func pickLoop() -> ClientEventLoop {
        loops.count == 1 ? loops[0] : loops[nextLoop.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    private func submit(
        _ request: HTTPClientRequest,
        on loop: ClientEventLoop,
        cancellation: RequestCancellation?,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        let target: RequestTarget
        switch request.validate() {
        case .success(let valid): target = valid
        case .failure(let error): return completion(.failure(error))
        }
        if cancellation?.isCancelled.load(ordering: .acquiring) == true {
            return completion(.failure(HTTPClientError(code: .cancelled, message: "request cancelled")))
        }
        let pending = loop.pending.value.add(1, ordering: .relaxed).newValue
        guard pending <= configuration.maxPendingRequests else {
            loop.pending.value.subtract(1, ordering: .relaxed)
            let message = "more than \(configuration.maxPendingRequests) requests pending"
            return completion(.failure(HTTPClientError(code: .overloaded, message: message)))
        }
        let timeout = MonotonicTime.nanoseconds(request.timeout)
        let deadline = timeout == 0 ? UInt64.max : MonotonicTime.now() + timeout
        let accepted = loop.submit(
            PendingRequest(
                request: request, target: target, deadline: deadline, cancellation: cancellation,
                completion: completion))
        if !accepted {
            loop.pending.value.subtract(1, ordering: .relaxed)
            completion(.failure(HTTPClientError(code: .cancelled, message: "client is shut down")))
        }
    }
}
