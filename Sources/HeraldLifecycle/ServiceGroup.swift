import Dispatch
import Foundation
import HeraldObservability
import Synchronization

/// Runs services together, each on a thread of its own (`ServiceExecutor`), and stops them gracefully in order
/// (`GracefulShutdown`): on SIGTERM or SIGINT (when asked to handle them), when `stop()` is called, or when one of
/// them returns or fails. Services stop one at a time, the last listed first, so that what takes work in (the HTTP
/// server) stops before what does the work (the delivery engine). Cancelling `run` cancels them all at once.
///
/// ```swift
/// let group = ServiceGroup(
///     [("delivery", engine), ("scheduler", scheduler), ("http", server)], logger: logger, signals: [SIGTERM, SIGINT])
/// try await group.run()   // returns once every service has stopped
/// ```
public final class ServiceGroup: Sendable {
    private let services: [(name: String, service: any Service)]
    private let logger: Logger
    private let signalWatch: SignalRelay.Watch?
    private let stopRequested = Wakeup()

    /// A group of `services` (started in this order, stopped in reverse); `signals` stop it when received — from
    /// now on, not only once it runs: a signal that came between the two would otherwise be ignored and lost.
    public init(_ services: [(name: String, service: any Service)], logger: Logger, signals: [Int32] = []) {
        self.services = services
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
    public func stop() { stopRequested.signal() }

    /// Runs the group in the background, on a thread of its own (so that nothing blocking the shared pool can
    /// keep it from starting or stopping); the task ends when the group has stopped.
    public func start() -> Task<Void, any Error> {
        let executor = ServiceExecutor(name: "herald-services")
        return Task(executorPreference: executor) {
            defer { executor.shutdown() }
            try await self.run()
        }
    }

    /// Runs every service until the group is asked to stop or one of them ends; then stops the others in reverse
    /// order and returns. Rethrows the first failure.
    public func run() async throws {
        defer { signalWatch?.cancel() }

        let firstFailure = FirstFailure()
        var running: [(name: String, task: Task<Void, Never>, request: ShutdownRequest, executor: ServiceExecutor)] =
            []
        for (name, service) in services {
            let request = ShutdownRequest()
            let executor = ServiceExecutor(name: "herald-" + name)
            let task = Task(executorPreference: executor) { [stopRequested, logger] in
                do {
                    try await GracefulShutdown.run(answering: request) { try await service.run() }
                    if !request.isRequested { logger.error("service stopped by itself", ["service": name]) }
                } catch {
                    if !request.isRequested { logger.error("service failed", ["service": name, "error": "\(error)"]) }
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
        for service in running.reversed() {
            service.request.request()
            await service.task.value
            service.executor.shutdown()
            logger.debug("service stopped", ["service": service.name])
        }
        if let failure = firstFailure.error { throw failure }
    }
}

/// The first error any service threw.
private final class FirstFailure: Sendable {
    private let first = Mutex<(any Error)?>(nil)

    func record(_ error: any Error) { first.withLock { if $0 == nil { $0 = error } } }
    var error: (any Error)? { first.withLock { $0 } }
}
