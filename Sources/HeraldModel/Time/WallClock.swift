import Foundation

/// Where the engine reads the time of day from: injected so tests can drive it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Timestamp

    /// A clock that answers with `read()`.
    public init(_ read: @escaping @Sendable () -> Timestamp) { self.read = read }

    /// The current time.
    public func now() -> Timestamp { read() }

    /// The system's clock.
    public static let system = WallClock {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
