import COpenSSL

/// Seals secrets at rest (APNs keys, FCM credentials, webhook secrets) with AES-256-GCM.
///
/// A sealed value is `0x01 ‖ nonce (12 random bytes) ‖ ciphertext ‖ tag (16 bytes)`, 29 bytes longer than the
/// plaintext. The associated data is authenticated but not stored: pass the same bytes (e.g. the row's id) to
/// ``open(_:associatedData:)`` so a sealed value cannot be moved to another row. With random nonces, keep the number
/// of seals under one key well below 2³² and rotate keys before that.
///
/// ```swift
/// let box = try SecretBox(key: masterKey)
/// let sealed = try box.seal(Array(p8Text.utf8), associatedData: Array(businessID.utf8))
/// let p8 = try box.open(sealed, associatedData: Array(businessID.utf8))
/// ```
package struct SecretBox: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key length: 32 bytes (AES-256).
    package static let keyByteCount = 32
    /// The nonce length: 12 bytes.
    package static let nonceByteCount = 12
    /// The authentication tag length: 16 bytes.
    package static let tagByteCount = 16
    /// The format version written as the first byte.
    package static let formatVersion: UInt8 = 0x01
    /// How many bytes sealing adds to a plaintext.
    package static let overheadByteCount = 1 + nonceByteCount + tagByteCount

    private let key: [UInt8]

    /// Creates a box with a 32-byte key; any other length throws ``CryptoError/Code/invalidKey``.
    package init(key: [UInt8]) throws {
        guard key.count == Self.keyByteCount else {
            throw CryptoError(
                code: .invalidKey, message: "SecretBox needs a \(Self.keyByteCount)-byte key, got \(key.count) bytes")
        }
        self.key = key
    }

    /// A new random 32-byte key.
    package static func generateKey() -> [UInt8] {
        SecureRandom.bytes(count: keyByteCount)
    }

    /// Does not show the key.
    package var description: String { "SecretBox(AES-256-GCM)" }

    /// No children, so `dump` and debuggers do not show the key either.
    package var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Encrypts and authenticates `plaintext`, binding it to `associatedData`.
    ///
    /// Throws ``CryptoError/Code/randomFailed`` if no nonce could be drawn and ``CryptoError/Code/invalidInput``
    /// for inputs over 2 GiB.
    package func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard plaintext.count < Int(Int32.max) - Self.overheadByteCount, associatedData.count < Int(Int32.max) else {
            throw CryptoError(code: .invalidInput, message: "SecretBox input too large")
        }
        let sealedCount = plaintext.count + Self.overheadByteCount
        var sealed = [UInt8](repeating: 0, count: sealedCount)
        try sealed.withUnsafeMutableBufferPointer { output in
            let base = output.baseAddress!
            base[0] = Self.formatVersion
            let nonce = base + 1
            let ciphertext = nonce + Self.nonceByteCount
            let tag = ciphertext + plaintext.count
            try SecureRandom.fill(UnsafeMutableRawBufferPointer(start: nonce, count: Self.nonceByteCount))

            guard let context = EVP_CIPHER_CTX_new() else {
                throw CryptoError(code: .invalidInput, message: "out of memory")
            }
            defer { EVP_CIPHER_CTX_free(context) }
            var ok = key.withUnsafeBufferPointer {
                EVP_EncryptInit_ex2(context, Algorithms.aes256GCM, $0.baseAddress, nonce, nil) == 1
            }
            var written: Int32 = 0
            if ok, !associatedData.isEmpty {
                ok = associatedData.withUnsafeBufferPointer {
                    EVP_EncryptUpdate(context, nil, &written, $0.baseAddress, Int32($0.count)) == 1
                }
            }
            if ok, !plaintext.isEmpty {
                let status = plaintext.withUnsafeBufferPointer {
                    EVP_EncryptUpdate(context, ciphertext, &written, $0.baseAddress, Int32($0.count))
                }
                ok = status == 1 && written == Int32(plaintext.count)
            }
            ok = ok && EVP_EncryptFinal_ex(context, tag, &written) == 1 && written == 0
            ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagByteCount), tag) == 1
            guard ok else {
                throw CryptoError.openSSL(.invalidInput, "AES-256-GCM encryption failed")
            }
        }
        return sealed
    }

    /// Checks and decrypts a value from ``seal(_:associatedData:)``.
    ///
    /// Throws ``CryptoError/Code/decryptionFailed`` if it was altered or truncated, sealed under another key or with
    /// other associated data, or has an unknown version byte.
    package func open(_ sealed: [UInt8], associatedData: [UInt8] = []) throws -> [UInt8] {
        guard sealed.count >= Self.overheadByteCount, sealed.count < Int(Int32.max),
            associatedData.count < Int(Int32.max), sealed[0] == Self.formatVersion
        else {
            throw CryptoError(code: .decryptionFailed, message: "sealed value is truncated or has an unknown format")
        }
        let plaintextCount = sealed.count - Self.overheadByteCount
        var plaintext = [UInt8](repeating: 0, count: plaintextCount)
        let ok = sealed.withUnsafeBufferPointer { input in
            plaintext.withUnsafeMutableBufferPointer { output in
                decrypt(input.baseAddress!, plaintextCount: plaintextCount, into: output.baseAddress, associatedData)
            }
        }
        guard ok else {
            plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            OpenSSLErrorQueue.clear()
            throw CryptoError(code: .decryptionFailed, message: "sealed value failed authentication")
        }
        return plaintext
    }

    private func decrypt(
        _ sealed: UnsafePointer<UInt8>, plaintextCount: Int, into plaintext: UnsafeMutablePointer<UInt8>?,
        _ associatedData: [UInt8]
    ) -> Bool {
        let nonce = sealed + 1
        let ciphertext = nonce + Self.nonceByteCount
        let tag = ciphertext + plaintextCount
        guard let context = EVP_CIPHER_CTX_new() else { return false }
        defer { EVP_CIPHER_CTX_free(context) }
        var ok = key.withUnsafeBufferPointer {
            EVP_DecryptInit_ex2(context, Algorithms.aes256GCM, $0.baseAddress, nonce, nil) == 1
        }
        var written: Int32 = 0
        if ok, !associatedData.isEmpty {
            ok = associatedData.withUnsafeBufferPointer {
                EVP_DecryptUpdate(context, nil, &written, $0.baseAddress, Int32($0.count)) == 1
            }
        }
        if ok, plaintextCount > 0 {
            ok =
                EVP_DecryptUpdate(context, plaintext, &written, ciphertext, Int32(plaintextCount)) == 1
                && written == Int32(plaintextCount)
        }
        // The tag is only read, despite the mutable pointer in the ctrl signature.
        let tagBytes = UnsafeMutableRawPointer(mutating: tag)
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagByteCount), tagBytes) == 1
        var finalByte: UInt8 = 0
        ok = ok && EVP_DecryptFinal_ex(context, &finalByte, &written) == 1
        return ok
    }
}
