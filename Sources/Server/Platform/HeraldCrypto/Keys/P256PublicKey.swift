import COpenSSL

/// An ECDSA public key on NIST P-256, for checking ES256 signatures.
///
/// ```swift
/// let publicKey = try P256PublicKey(pemRepresentation: spkiText)
/// publicKey.isValidSignature(signature, for: message)
/// ```
package final class P256PublicKey: @unchecked Sendable {
    let key: PKey

    /// Reads a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// Throws ``CryptoError/Code/invalidKey`` if the text holds no readable public key and
    /// ``CryptoError/Code/unsupportedKey`` if it is not a P-256 key.
    package init(pemRepresentation: String) throws {
        let key = try PKey.parse(pem: pemRepresentation, as: .publicKey)
        try P256PrivateKey.checkIsP256(key, kind: "public")
        self.key = key
    }

    /// Wraps a key already known to be a public P-256 key.
    init(checked key: PKey) {
        self.key = key
    }

    /// The key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    package var pemRepresentation: String { key.publicKeyPEM }

    /// Whether `rawRS`, a 64-byte `r ‖ s` signature, is a valid ES256 signature of `message` under this key.
    /// Anything malformed (other lengths, DER) is simply invalid.
    package func isValidSignature(_ rawRS: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: rawRS, componentByteCount: P256PrivateKey.componentByteCount)
        else { return false }
        return key.isValidSHA256Signature(der, for: message)
    }
}
