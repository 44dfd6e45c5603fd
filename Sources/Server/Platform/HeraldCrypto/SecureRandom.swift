import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`), safe to call from any thread.
///
/// ```swift
/// let salt = SecureRandom.bytes(count: 16)
/// ```
package enum SecureRandom {
    /// Returns `count` random bytes. Traps if the system's random source fails, which leaves nothing safe to do.
    package static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes(count:) needs a non-negative count")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do {
                try fill(UnsafeMutableRawBufferPointer(buffer))
            } catch {
                fatalError("\(error)")
            }
            initialized = count
        }
    }

    /// Fills `buffer` with random bytes; throws ``CryptoError/Code/randomFailed`` if the random source fails.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard var cursor = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let chunk = min(remaining, Int(Int32.max))
            guard RAND_bytes(cursor, Int32(chunk)) == 1 else {
                throw CryptoError.openSSL(.randomFailed, "RAND_bytes failed")
            }
            cursor += chunk
            remaining -= chunk
        }
    }
}
