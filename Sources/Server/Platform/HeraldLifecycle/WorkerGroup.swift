import Dispatch
import Foundation
import HeraldObservability
import Synchronization

/// Runs workers together, each on a thread of its own (`WorkerExecutor`), and stops them gracefully in order
/// (`GracefulShutdown`): on SIGTERM or SIGINT (when asked to handle them), when `stop()` is called, or when one of
/// them returns or fails. Services stop one at a time, the last listed first, so that what takes work in (the HTTP
/// server) stops before what does the work (the delivery engine). Cancelling `run` cancels them all at once.
///
/// ```swift
/// let group = WorkerGroup(
///     [("delivery", engine), ("scheduler", scheduler), ("http", server)], logger: logger, signals: [SIGTERM, SIGINT])
/// try await group.run()   // returns once every worker has stopped
/// ```
package final class WorkerGroup: Sendable {
    private let workers: [(name: String, worker: any Worker)]
    private let logger: Logger
    private let signalWatch: SignalRelay.Watch?
    private let stopRequested = Wakeup()

    /// A group of `workers` (started in this order, stopped in reverse); `signals` stop it when received — from
    /// now on, not only once it runs: a signal that came between the two would otherwise be ignored and lost.
    package init(_ workers: [(name: String, worker: any Worker)], logger: Logger, signals: [Int32] = []) {
        self.workers = workers
        self.logger = logger
        signalWatch =
            signals.isEmpty
            ? nil
            : SignalRelay.shared.watch(signals) { [stopRequested] number in
                logger.notice("shutting down", ["signal": String(number)])
                stopRequested.signal()
            }
    }

    /// Asks the group to stop (from any thread).
    package func stop() { stopRequested.signal() }

    /// Runs the group in the background, on a thread of its own (so that nothing blocking the shared pool can
    /// keep it from starting or stopping); the task ends when the group has stopped.
    package func start() -> Task<Void, any Error> {
        let executor = WorkerExecutor(name: "herald-workers")
        return Task(executorPreference: executor) {
            defer { executor.shutdown() }
            try await self.run()
        }
    }

    /// Runs every worker until the group is asked to stop or one of them ends; then stops the others in reverse
    /// order and returns. Rethrows the first failure.
    package func run() async throws {
        defer { signalWatch?.cancel() }

        let firstFailure = FirstFailure()
        var running: [(name: String, task: Task<Void, Never>, request: ShutdownRequest, executor: WorkerExecutor)] =
            []
        for (name, worker) in workers {
            let request = ShutdownRequest()
            let executor = WorkerExecutor(name: "herald-" + name)
            let task = Task(executorPreference: executor) { [stopRequested, logger] in
                do {
                    try await GracefulShutdown.run(answering: request) { try await worker.run() }
                    if !request.isRequested { logger.error("worker stopped by itself", ["worker": name]) }
                } catch {
                    if !request.isRequested { logger.error("worker failed", ["worker": name, "error": "\(error)"]) }
                    firstFailure.record(error)
                }
                stopRequested.signal()
            }
            running.append((name, task, request, executor))
        }
        let tasks = running.map(\.task)
        await withTaskCancellationHandler {
            await stopRequested.wait()
        } onCancel: {
            for task in tasks { task.cancel() }
        }
        for worker in running.reversed() {
            worker.request.request()
            await worker.task.value
            worker.executor.shutdown()
            logger.debug("worker stopped", ["worker": worker.name])
        }
        if let failure = firstFailure.error { throw failure }
    }
}

/// The first error any worker threw.
private final class FirstFailure: Sendable {
    private let first = Mutex<(any Error)?>(nil)

    func record(_ error: any Error) { first.withLock { if $0 == nil { $0 = error } } }
    var error: (any Error)? { first.withLock { $0 } }
}
