import HeraldModel

/// Where the SDK's randomness comes from (ids, jitter): injected so tests are repeatable.
public struct RandomSource: Sendable {
    private let nextWord: @Sendable () -> UInt64

    /// A source that answers `next()`.
    public init(_ next: @escaping @Sendable () -> UInt64) { nextWord = next }

    /// The system's secure generator.
    public static let system = RandomSource {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    /// 64 random bits.
    public func next() -> UInt64 { nextWord() }

    /// A number in 0..<1.
    public func fraction() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// A random (version 4) UUID in lower case: install ids, event ids, idempotency keys.
    public func uuid() -> String { UUIDString.format(next(), next()) }
}
