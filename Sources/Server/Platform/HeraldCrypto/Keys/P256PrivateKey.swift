import COpenSSL

/// An ECDSA private key on NIST P-256 (prime256v1), for ES256 signatures such as APNs provider tokens.
///
/// Immutable and safe to share between threads: each signature uses its own OpenSSL context.
///
/// ```swift
/// let key = try P256PrivateKey(pemRepresentation: p8FileText)   // Apple's AuthKey_XXXXXXXXXX.p8
/// let signature = try key.signature(for: Array(signingInput.utf8))   // 64 bytes, r ‖ s
/// ```
public final class P256PrivateKey: @unchecked Sendable {
    /// The byte size of each of r and s, and of a field element.
    static let componentByteCount = 32
    /// The names OpenSSL may report for the P-256 group.
    static let groupNames: Set<String> = ["prime256v1", "P-256", "secp256r1"]

    let key: PKey

    /// The matching public key.
    package let publicKey: P256PublicKey

    /// Reads a private key from PEM: PKCS#8 `-----BEGIN PRIVATE KEY-----` (Apple's .p8 files) or SEC1
    /// `-----BEGIN EC PRIVATE KEY-----`. Surrounding whitespace and `\r\n` line ends are fine.
    ///
    /// Throws ``CryptoError/Code/invalidKey`` if the text holds no readable private key, and
    /// ``CryptoError/Code/unsupportedKey`` for another algorithm (e.g. RSA), another curve, or an encrypted key.
    package init(pemRepresentation: String) throws {
        let key = try PKey.parse(pem: pemRepresentation, as: .privateKey)
        try Self.checkIsP256(key, kind: "private")
        self.key = key
        self.publicKey = P256PublicKey(checked: key.publicOnly())
    }

    private init(generated key: PKey) {
        self.key = key
        self.publicKey = P256PublicKey(checked: key.publicOnly())
    }

    /// A new random key.
    package static func generate() -> P256PrivateKey {
        P256PrivateKey(generated: PKey.generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") })
    }

    /// The key as PKCS#8 PEM, the format of a .p8 file. This is the secret itself: store it sealed.
    package var pemRepresentation: String { key.privateKeyPEM }

    /// The ES256 signature of `message`: ECDSA over SHA-256(`message`), as the 64-byte `r ‖ s` that JWS uses (each
    /// half left-padded to 32 bytes), not DER. Randomised: two signatures of one message differ.
    ///
    /// Throws ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    package func signature(for message: [UInt8]) throws -> [UInt8] {
        let der = try key.signSHA256(message)
        guard let raw = ECDSASignature.raw(fromDER: der, componentByteCount: Self.componentByteCount) else {
            throw CryptoError(code: .signingFailed, message: "OpenSSL returned a malformed ECDSA signature")
        }
        return raw
    }

    /// Throws unless `key` is an EC key on P-256.
    static func checkIsP256(_ key: PKey, kind: String) throws {
        guard key.baseID == EVP_PKEY_EC else {
            throw CryptoError(code: .unsupportedKey, message: "the \(kind) key is not an EC key; expected P-256")
        }
        guard let group = key.groupName, groupNames.contains(group) else {
            let name = key.groupName.map { "curve \($0)" } ?? "a curve without a name"
            throw CryptoError(code: .unsupportedKey, message: "the \(kind) key is on \(name); expected P-256")
        }
    }
}
