import Foundation

/// Waits for a condition nothing announces (a server's connection count, a process's port, a peer's statistics) by
/// looking at it again every few milliseconds until it holds or a deadline passes: a test waits exactly as long as
/// it must, and never passes because a fixed wait happened to be long enough. Where something does announce the
/// change, wait on that instead (`CommitWaiter`, a semaphore).
///
/// ```swift
/// #expect(Poll.until { server.openConnections == 5 }, "the five connections are in")
/// #expect(await Poll.eventually(timeout: .seconds(30)) { client.statistics.deadConnections == 1 })
/// ```
public enum Poll {
    /// How long a condition is waited for unless a test says otherwise.
    public static let defaultTimeout: Duration = .seconds(10)

    /// Looks at `condition` every `interval` (blocking this thread) until it holds or `timeout` passes; whether it
    /// held.
    @discardableResult
    public static func until(
        timeout: Duration = defaultTimeout, every interval: Duration = .milliseconds(10),
        _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: interval / .seconds(1))
        }
    }

    /// Looks at `condition` every `interval` (suspending, not blocking: for async tests) until it holds, `timeout`
    /// passes or the task is cancelled; whether it held.
    @discardableResult
    public static func eventually(
        timeout: Duration = defaultTimeout, every interval: Duration = .milliseconds(10),
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            try? await Task.sleep(for: interval)
        }
    }
}
