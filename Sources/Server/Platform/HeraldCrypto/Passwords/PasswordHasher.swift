import COpenSSL

/// Hashes and verifies passwords with scrypt (RFC 7914), computed by OpenSSL.
///
/// A hash is self-describing text, `scrypt$<n>$<r>$<p>$<salt>$<key>` with the salt (16 random bytes) and the
/// derived key (32 bytes) in unpadded base64url, so parameters can be raised later without breaking stored hashes.
/// Hashing is deliberately slow (~tens of milliseconds, ~16 MiB at the default parameters): call it off the
/// request threads' hot path, e.g. from a bounded pool.
///
/// ```swift
/// let hasher = PasswordHasher()
/// let stored = try hasher.hash("correct horse")
/// hasher.verify("correct horse", against: stored)   // true
/// ```
package struct PasswordHasher: Sendable {
    /// The prefix that names the scheme in a hash.
    static let scheme = "scrypt"
    /// Length of the random salt in new hashes.
    package static let saltByteCount = 16
    /// Length of the derived key in new hashes.
    package static let keyByteCount = 32

    /// The parameters used for new hashes.
    package let parameters: Parameters

    /// Creates a hasher that hashes with `parameters`; verification always uses the parameters in the hash.
    package init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Hashes `password` (its UTF-8 bytes, not normalised) with a fresh random salt.
    ///
    /// Throws ``CryptoError/Code/invalidInput`` if ``parameters`` are outside ``Parameters/isAcceptable``, and
    /// ``CryptoError/Code/randomFailed`` if no salt could be drawn.
    package func hash(_ password: String) throws -> String {
        guard parameters.isAcceptable else {
            throw CryptoError(code: .invalidInput, message: "scrypt parameters out of range: \(parameters)")
        }
        var salt = [UInt8](repeating: 0, count: Self.saltByteCount)
        try salt.withUnsafeMutableBytes { try SecureRandom.fill($0) }
        guard let key = Self.derive(password, salt: salt, parameters: parameters, count: Self.keyByteCount) else {
            throw CryptoError.openSSL(.invalidInput, "scrypt key derivation failed")
        }
        return [
            Self.scheme, String(parameters.n), String(parameters.r), String(parameters.p),
            Base64URL.encode(salt), Base64URL.encode(key),
        ].joined(separator: "$")
    }

    /// Whether `password` matches `encoded`, a hash from ``hash(_:)``.
    ///
    /// Uses the parameters, salt and key length written in `encoded` and compares in constant time. Returns false,
    /// without doing the work, for malformed text or parameters outside ``Parameters/isAcceptable``.
    package func verify(_ password: String, against encoded: String) -> Bool {
        guard let stored = StoredHash(encoded) else { return false }
        guard let key = Self.derive(password, salt: stored.salt, parameters: stored.parameters, count: stored.key.count)
        else { return false }
        return ConstantTime.equals(key, stored.key)
    }

    /// Whether `encoded` was made with parameters other than this hasher's (or cannot be read), so the password
    /// should be hashed again after its next successful verification.
    package func needsRehash(_ encoded: String) -> Bool {
        guard let stored = StoredHash(encoded) else { return true }
        return stored.parameters != parameters || stored.key.count != Self.keyByteCount
    }

    /// scrypt of the password's UTF-8 bytes, or nil if OpenSSL refuses.
    static func derive(_ password: String, salt: [UInt8], parameters: Parameters, count: Int) -> [UInt8]? {
        var password = password
        var succeeded = false
        let key = password.withUTF8 { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
                    let status = passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                        EVP_PBE_scrypt(
                            passwordChars.baseAddress, passwordChars.count, saltBytes.baseAddress, saltBytes.count,
                            parameters.n, parameters.r, parameters.p, parameters.memoryBound,
                            output.baseAddress, count)
                    }
                    succeeded = status == 1
                    if !succeeded { OPENSSL_cleanse(output.baseAddress, count) }
                    initialized = count
                }
            }
        }
        guard succeeded else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return key
    }
}

/// The parts of an encoded hash, validated.
private struct StoredHash {
    let parameters: PasswordHasher.Parameters
    let salt: [UInt8]
    let key: [UInt8]

    init?(_ encoded: String) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == PasswordHasher.scheme,
            let n = Self.number(fields[1]), let r = Self.number(fields[2]), let p = Self.number(fields[3]),
            let salt = Base64URL.decode(String(fields[4])), let key = Base64URL.decode(String(fields[5]))
        else { return nil }
        let parameters = PasswordHasher.Parameters(n: n, r: r, p: p)
        guard parameters.isAcceptable, salt.count <= 64, (16...64).contains(key.count) else { return nil }
        self.parameters = parameters
        self.salt = salt
        self.key = key
    }

    /// A plain decimal number: digits only, at most 10 of them.
    private static func number(_ text: Substring) -> UInt64? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return UInt64(text)
    }
}
