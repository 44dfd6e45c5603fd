/// Runs work later: retries with backoff, the daily token refresh. Injected, so tests decide when "later" is.
public protocol WorkScheduler: Sendable {
    /// Runs `work` once after `delay`, unless the returned handle is cancelled first.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () async -> Void) -> ScheduledWork
}

/// A handle to scheduled work.
public struct ScheduledWork: Sendable {
    private let cancelWork: @Sendable () -> Void

    /// A handle that cancels with `cancel`.
    public init(cancel: @escaping @Sendable () -> Void) { cancelWork = cancel }

    /// Stops the work if it has not started.
    public func cancel() { cancelWork() }
}

/// The real scheduler: a task that sleeps, then runs the work.
public struct TaskScheduler: WorkScheduler {
    /// A scheduler.
    public init() {}

    /// Sleeps `delay` in a task, then runs `work` unless cancelled.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () async -> Void) -> ScheduledWork {
        let task = Task {
            if delay > .zero {
                do { try await Task.sleep(for: delay) } catch { return }
            }
            guard !Task.isCancelled else { return }
            await work()
        }
        return ScheduledWork { task.cancel() }
    }
}
