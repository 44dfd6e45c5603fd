import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request accepted by ``HTTP2Client`` and not yet completed. A class, though immutable: it moves from the
/// caller's thread to the loop's queue, its slot and its stream, and a struct of this many references took a
/// retain and a release per field at each move (a tenth of the loop's CPU next door).
final class PendingRequest: Sendable {
    let request: HTTPClientRequest
    /// Where it goes, read from its URL when it was checked.
    let target: RequestTarget
    /// Monotonic nanoseconds after which the request fails with `.timeout`; `UInt64.max` for none.
    let deadline: UInt64
    let cancellation: RequestCancellation?
    let completion: @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void

    init(
        request: HTTPClientRequest, target: RequestTarget, deadline: UInt64, cancellation: RequestCancellation?,
        completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        self.request = request
        self.target = target
        self.deadline = deadline
        self.cancellation = cancellation
        self.completion = completion
    }
}

/// Links an awaiting task to its request so that cancelling the task cancels the request.
final class RequestCancellation: @unchecked Sendable {
    /// Set from any thread when the task is cancelled.
    let isCancelled = Atomic<Bool>(false)
    /// The request's id in its event loop once admitted. Read and written on the event-loop thread only (hence
    /// `@unchecked`).
    var requestID: RequestID?
}

/// The count of a client's requests accepted and not yet completed, shared by its loops.
final class PendingCount: Sendable {
    let value = Atomic<Int>(0)
}
