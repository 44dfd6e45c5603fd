extension PasswordHasher {
    /// scrypt's cost parameters: CPU/memory cost `n` (a power of two), block size `r`, parallelism `p`.
    ///
    /// Memory use is about `128 · n · r` bytes; work grows with `n · r · p`.
    package struct Parameters: Hashable, Sendable, CustomStringConvertible {
        /// CPU/memory cost; a power of two greater than 1.
        package var n: UInt64
        /// Block size.
        package var r: UInt64
        /// Parallelism.
        package var p: UInt64

        /// Creates parameters; see ``isAcceptable`` for the accepted range.
        package init(n: UInt64 = 16384, r: UInt64 = 8, p: UInt64 = 1) {
            self.n = n
            self.r = r
            self.p = p
        }

        /// n = 2¹⁴, r = 8, p = 1: 16 MiB and a few tens of milliseconds per hash (the common interactive-login
        /// choice).
        package static let `default` = Self()

        /// n = 1024, r = 8, p = 1: 1 MiB and about a millisecond, for tests only.
        package static let fastForTests = Self(n: 1024, r: 8, p: 1)

        /// The largest accepted `n` (2²⁰).
        package static let maximumN: UInt64 = 1 << 20
        /// The largest accepted memory use, `128 · n · r` bytes (256 MiB).
        package static let maximumMemory: UInt64 = 256 << 20
        /// The largest accepted `n · r · p` (2²⁴, 128 × the default).
        package static let maximumWork: UInt64 = 1 << 24
        /// The largest accepted `r · p` (2¹⁰; RFC 7914 requires less than 2³⁰).
        package static let maximumBlockParallelism: UInt64 = 1 << 10

        /// Whether these parameters are sane enough to run: `n` a power of two in 2…2²⁰, `r` and `p` at least 1,
        /// memory within ``maximumMemory``, `r · p` within ``maximumBlockParallelism`` and `n · r · p` within
        /// ``maximumWork``. A stored hash with other parameters never verifies, so a tampered hash cannot make the
        /// server allocate or spin without bound.
        package var isAcceptable: Bool {
            guard n >= 2, n <= Self.maximumN, n & (n - 1) == 0, r >= 1, p >= 1 else { return false }
            guard r <= Self.maximumMemory / (128 * n) else { return false }
            // r ≤ 2²⁰ by now; bounding p first keeps every product below 2⁶⁴.
            guard p <= Self.maximumBlockParallelism, r * p <= Self.maximumBlockParallelism else { return false }
            guard p <= Self.maximumWork / (n * r) else { return false }
            return true
        }

        /// The `maxmem` bound handed to OpenSSL: the V array, the B array, and room to spare.
        var memoryBound: UInt64 {
            128 * r * (n + 2) + 128 * r * p + (1 << 20)
        }

        /// `n=…, r=…, p=…`.
        package var description: String { "n=\(n), r=\(r), p=\(p)" }
    }
}
