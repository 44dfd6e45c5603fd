import Foundation

/// The time, injected: the system's in production, one a test sets and moves in tests.
///
/// ```swift
/// let clock = WallClock.system
/// let started = clock.now()
/// try await clock.sleep(until: started.adding(.seconds(1)))
/// ```
public struct WallClock: Sendable {
    private let read: @Sendable () -> Timestamp
    private let sleeper: @Sendable (Timestamp) async throws -> Void

    /// A clock reading `read`, sleeping with `sleep` (by default: real time, for as long as `read` says is left).
    public init(
        _ read: @escaping @Sendable () -> Timestamp,
        sleep: (@Sendable (Timestamp) async throws -> Void)? = nil
    ) {
        self.read = read
        self.sleeper =
            sleep ?? { deadline in
                let left = deadline.milliseconds - read().milliseconds
                if left > 0 { try await Task.sleep(for: .milliseconds(left)) }
            }
    }

    /// The time now.
    public func now() -> Timestamp { read() }

    /// Suspends until `deadline` on this clock; throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Timestamp) async throws {
        try Task.checkCancellation()
        try await sleeper(deadline)
    }

    /// Suspends for `duration` on this clock.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now().adding(duration))
    }

    /// The system clock, in milliseconds since 1970.
    public static let system = WallClock {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
