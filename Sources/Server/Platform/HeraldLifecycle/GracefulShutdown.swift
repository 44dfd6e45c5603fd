import Synchronization

/// How a `WorkerGroup` asks a worker to stop gracefully — finish or hand back what it holds — as opposed to
/// cancelling it (stop now). Inside a worker's `run()`:
///
/// ```swift
/// GracefulShutdown.onRequest { wakeup.signal() }      // called once, when the stop is asked for
/// while !GracefulShutdown.isRequested { … await wakeup.wait(…) }
/// // finish what is in flight, then return
/// ```
/// Outside a group (nobody will ask), a worker runs until cancelled.
package enum GracefulShutdown {
    /// The request this task's worker answers to (set by `WorkerGroup`).
    @TaskLocal static var request: ShutdownRequest?

    /// Whether this worker was asked to stop (or its task cancelled).
    package static var isRequested: Bool { (request?.isRequested ?? false) || Task.isCancelled }

    /// Calls `handler` once when this worker is asked to stop (at once if it already was). Nothing happens
    /// outside a group.
    package static func onRequest(_ handler: @escaping @Sendable () -> Void) { request?.onRequest(handler) }

    /// Waits until this worker is asked to stop or its task is cancelled.
    package static func wait() async {
        let wakeup = Wakeup()
        onRequest { wakeup.signal() }
        while !isRequested { await wakeup.wait() }
    }

    /// Runs `body` as a worker asked to stop through `request`.
    static func run<T: Sendable>(answering request: ShutdownRequest, _ body: () async throws -> T) async rethrows -> T {
        try await $request.withValue(request, operation: body)
    }
}

/// One worker's stop request: asked once, heard by every handler registered before or after.
final class ShutdownRequest: Sendable {
    private struct State {
        var requested = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    var isRequested: Bool { state.withLock { $0.requested } }

    func onRequest(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.requested { return true }
            state.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    func request() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.requested else { return [] }
            state.requested = true
            defer { state.handlers.removeAll() }
            return state.handlers
        }
        for handler in handlers { handler() }
    }
}
