import COpenSSL

/// An RSA public key, for checking RS256 signatures.
///
/// ```swift
/// let publicKey = try RSAPublicKey(pemRepresentation: spkiText)
/// publicKey.isValidSignatureRS256(signature, for: message)
/// ```
package final class RSAPublicKey: @unchecked Sendable {
    let key: PKey

    /// Reads a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// Throws ``CryptoError/Code/invalidKey`` if the text holds no readable public key and
    /// ``CryptoError/Code/unsupportedKey`` if it is not an RSA key of 2048…16384 bits.
    package init(pemRepresentation: String) throws {
        let key = try PKey.parse(pem: pemRepresentation, as: .publicKey)
        try RSAPrivateKey.checkIsRSA(key, kind: "public")
        self.key = key
    }

    /// Wraps a key already known to be a public RSA key.
    init(checked key: PKey) {
        self.key = key
    }

    /// The modulus size in bits.
    package var bits: Int { key.bits }

    /// The key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package var pemRepresentation: String { key.publicKeyPEM }

    /// Whether `signature` is a valid RS256 (RSASSA-PKCS1-v1_5, SHA-256) signature of `message` under this key.
    package func isValidSignatureRS256(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        key.isValidSHA256Signature(signature, for: message)
    }
}
