import COpenSSL

/// HMAC-SHA256 (RFC 2104) message authentication codes, e.g. for signed API requests.
///
/// Built from OpenSSL's SHA-256 with one digest context per call, which is several times faster than
/// OpenSSL's one-shot `HMAC()` (that one looks the algorithm up by name on every call). Thread-safe.
///
/// ```swift
/// let mac = HMACSHA256.authenticationCode(for: body, key: secret)
/// guard ConstantTime.equals(mac, presented) else { throw … }
/// ```
package enum HMACSHA256 {
    /// The length of a code in bytes.
    package static let byteCount = SHA256.byteCount

    /// The 32-byte HMAC-SHA256 of `message` under `key`. Keys of any length are accepted; keys longer than 64 bytes
    /// are hashed first, as RFC 2104 specifies.
    package static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode(for: $0, key: key) }
    }

    /// The 32-byte HMAC-SHA256 of the bytes in `message` under `key`.
    package static func authenticationCode(for message: UnsafeRawBufferPointer, key: [UInt8]) -> [UInt8] {
        let blockCount = SHA256.blockByteCount
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: blockCount + byteCount) { scratch in
            let pad = UnsafeMutableBufferPointer(rebasing: scratch[0..<blockCount])
            let inner = UnsafeMutableBufferPointer(rebasing: scratch[blockCount...])
            defer { OPENSSL_cleanse(scratch.baseAddress, scratch.count) }

            // K0: the key, hashed if longer than a block, zero-padded to a block; then K0 ^ ipad.
            pad.initialize(repeating: 0)
            if key.count > blockCount {
                _ = pad.initialize(from: SHA256.hash(key))
            } else {
                _ = pad.initialize(from: key)
            }
            for index in 0..<blockCount { pad[index] ^= 0x36 }

            guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
            defer { EVP_MD_CTX_free(context) }

            var length: UInt32 = 0
            var ok = EVP_DigestInit_ex2(context, Algorithms.sha256, nil) == 1
            ok = ok && EVP_DigestUpdate(context, pad.baseAddress, blockCount) == 1
            ok = ok && EVP_DigestUpdate(context, message.baseAddress, message.count) == 1
            ok = ok && EVP_DigestFinal_ex(context, inner.baseAddress, &length) == 1

            for index in 0..<blockCount { pad[index] ^= 0x36 ^ 0x5c }  // K0 ^ opad

            return [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
                ok = ok && EVP_DigestInit_ex2(context, Algorithms.sha256, nil) == 1
                ok = ok && EVP_DigestUpdate(context, pad.baseAddress, blockCount) == 1
                ok = ok && EVP_DigestUpdate(context, inner.baseAddress, byteCount) == 1
                ok = ok && EVP_DigestFinal_ex(context, output.baseAddress, &length) == 1
                guard ok else {
                    fatalError("HMAC-SHA256 digest failed: \(OpenSSLErrorQueue.takeReason() ?? "no reason")")
                }
                initialized = byteCount
            }
        }
    }
}
