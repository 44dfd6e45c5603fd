import COpenSSL

/// SHA-256 (FIPS 180-4) digests, computed by OpenSSL.
///
/// ```swift
/// let digest = SHA256.hash("abc".utf8)   // 32 bytes, ba7816bf…
/// ```
package enum SHA256 {
    /// The length of a digest in bytes.
    package static let byteCount = 32
    /// The length of the internal block in bytes (what HMAC pads keys to).
    package static let blockByteCount = 64

    /// The 32-byte digest of `bytes`. Arrays, `Data` and native strings' `utf8` views are hashed without copying.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash($0) }
    }

    /// The 32-byte digest of the bytes in `buffer`.
    package static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            var length: UInt32 = 0
            let status = EVP_Digest(
                buffer.baseAddress, buffer.count, output.baseAddress, &length, Algorithms.sha256, nil)
            guard status == 1, length == byteCount else {
                fatalError("EVP_Digest(SHA256) failed: \(OpenSSLErrorQueue.takeReason() ?? "no reason")")
            }
            initialized = byteCount
        }
    }
}
