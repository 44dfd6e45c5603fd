import Dispatch
import Foundation
import Synchronization

/// An HTTP client for push gateways (APNs, FCM): HTTP/2 over TLS with many requests multiplexed on a few
/// long-lived connections, HTTP/1.1 for plain `http://` URLs. Built on libcurl's multi interface, driven
/// by one thread per event loop (``Configuration/eventLoops``, each with its own connections, requests
/// spread over them in turn); no thread per request.
///
/// ```swift
/// let client = try HTTP2Client(configuration: .init(extraCAFile: caFile))
/// defer { client.shutdown() }
/// let response = try await client.execute(
///     HTTPClientRequest(method: "POST", url: url, headers: headers, body: payload, timeout: .seconds(10)))
/// print(response.status, response.header("apns-id") ?? "-")
/// ```
///
/// A request waits for a stream on an open connection (`CURLOPT_PIPEWAIT`) rather than opening a new
/// one; a new connection to a host opens only when every open one has no stream left, up to
/// ``Configuration/maxConnectionsPerHost``.
public final class HTTP2Client: Sendable {
    /// The configuration the client was made with.
    public let configuration: Configuration

    private let loops: [CurlEventLoop]
    private let stopped: DispatchSemaphore
    private let nextLoop = Atomic<Int>(0)
    private let isShutDown = Atomic<Bool>(false)

    /// Creates a client and starts its event-loop thread. Throws when the extra CA file cannot be read.
    public init(configuration: Configuration = .init()) throws(HTTPClientError) {
        self.configuration = configuration
        CurlGlobal.initialize()
        let caBundle = try CABundle(systemFile: configuration.systemCAFile, extraFile: configuration.extraCAFile)
        let pending = PendingCount()
        var loops: [CurlEventLoop] = []
        for _ in 0..<max(1, configuration.eventLoops) {
            loops.append(try CurlEventLoop(configuration: configuration, caBundle: caBundle, pending: pending))
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
    /// `completion` runs on the client's thread, which drives every transfer: it must return quickly and
    /// not block. A request refused before it is queued (invalid, overloaded, client shut down) completes
    /// at once on the caller's thread.
    public func execute(
        _ request: HTTPClientRequest,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        submit(request, on: pickLoop(), cancellation: nil, completion: completion)
    }

    /// Sends `request` and returns the response. Cancelling the task cancels the request
    /// (``HTTPClientError/Code/cancelled``).
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
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
    /// connections and waits for the client's thread to finish. Later requests fail at once. Idempotent: a
    /// second call returns at once. Called from a completion handler it does not wait (the thread finishes
    /// soon after the handler returns).
    public func shutdown() {
        let isFirst = !isShutDown.exchange(true, ordering: .acquiringAndReleasing)
        for loop in loops { loop.close() }
        guard isFirst, !loops.contains(where: \.isCurrentThread) else { return }
        for _ in loops { stopped.wait() }
    }

    /// New connections opened so far (the sum of `CURLINFO_NUM_CONNECTS` over finished requests).
    public var connectionsOpened: Int {
        loops.reduce(0) { $0 + $1.connectionsOpened.load(ordering: .relaxed) }
    }

    /// The loops take requests in turn.
    private func pickLoop() -> CurlEventLoop {
        loops.count == 1 ? loops[0] : loops[nextLoop.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    private func submit(
        _ request: HTTPClientRequest,
        on loop: CurlEventLoop,
        cancellation: RequestCancellation?,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        if let error = request.validationError() {
            return completion(.failure(error))
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
            PendingRequest(request: request, deadline: deadline, cancellation: cancellation, completion: completion))
        if !accepted {
            loop.pending.value.subtract(1, ordering: .relaxed)
            completion(.failure(HTTPClientError(code: .cancelled, message: "client is shut down")))
        }
    }
}
