import COpenSSL

/// An RSA private key, for RS256 signatures such as Google service-account (FCM) OAuth assertions.
///
/// Immutable and safe to share between threads: each signature uses its own OpenSSL context.
///
/// ```swift
/// let key = try RSAPrivateKey(pemRepresentation: serviceAccount.privateKey)
/// let jwt = try JWT.signRS256(headerJSON: header, claimsJSON: claims, key: key)
/// ```
public final class RSAPrivateKey: @unchecked Sendable {
    /// The smallest accepted modulus.
    package static let minimumBits = 2048
    /// The largest accepted modulus (bigger keys only cost CPU).
    package static let maximumBits = 16384

    let key: PKey

    /// The matching public key.
    package let publicKey: RSAPublicKey

    /// Reads a private key from PEM: PKCS#8 `-----BEGIN PRIVATE KEY-----` (the `private_key` of a Google
    /// service-account JSON, once its `\n` escapes are decoded) or PKCS#1 `-----BEGIN RSA PRIVATE KEY-----`.
    ///
    /// Throws ``CryptoError/Code/invalidKey`` if the text holds no readable private key, and
    /// ``CryptoError/Code/unsupportedKey`` for another algorithm, a modulus outside 2048…16384 bits, or an
    /// encrypted key.
    package init(pemRepresentation: String) throws {
        let key = try PKey.parse(pem: pemRepresentation, as: .privateKey)
        try Self.checkIsRSA(key, kind: "private")
        self.key = key
        self.publicKey = RSAPublicKey(checked: key.publicOnly())
    }

    private init(generated key: PKey) {
        self.key = key
        self.publicKey = RSAPublicKey(checked: key.publicOnly())
    }

    /// A new random key with a `bits`-bit modulus (2048…16384) and exponent 65537. Slow: ~0.1 s at 2048 bits.
    package static func generate(bits: Int = 2048) -> RSAPrivateKey {
        precondition((minimumBits...maximumBits).contains(bits), "RSA key size must be in 2048…16384 bits")
        return RSAPrivateKey(
            generated: PKey.generate(algorithm: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) })
    }

    /// The modulus size in bits.
    package var bits: Int { key.bits }

    /// The key as PKCS#8 PEM. This is the secret itself: store it sealed.
    package var pemRepresentation: String { key.privateKeyPEM }

    /// The RS256 signature of `message`: RSASSA-PKCS1-v1_5 with SHA-256, as many bytes as the modulus.
    ///
    /// Throws ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    package func signatureRS256(for message: [UInt8]) throws -> [UInt8] {
        try key.signSHA256(message)
    }

    /// Throws unless `key` is a plain RSA key of an accepted size.
    static func checkIsRSA(_ key: PKey, kind: String) throws {
        guard key.baseID == EVP_PKEY_RSA else {
            throw CryptoError(code: .unsupportedKey, message: "the \(kind) key is not an RSA key")
        }
        guard (minimumBits...maximumBits).contains(key.bits) else {
            throw CryptoError(
                code: .unsupportedKey,
                message: "the \(kind) RSA key has \(key.bits) bits; expected \(minimumBits)…\(maximumBits)")
        }
    }
}
