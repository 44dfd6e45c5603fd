import HeraldCrypto

/// Seals secrets (business signing secrets, .p8 keys, service accounts, install secrets, identity keys, provider
/// tokens) before they reach the store, and opens them when needed; and computes the server's own authentication
/// codes. The purpose (a `SealPurpose`, every one of them named there) is bound as associated data, so a sealed value
/// can't be moved to another column and opened there.
///
/// ```swift
/// let sealed = try sealer.seal(Array(secret.utf8), purpose: .businessSecret)
/// let secret = try sealer.open(sealed, purpose: .businessSecret)
/// ```
package struct SecretSealer: Sendable {
    private let box: SecretBox
    /// A key for `authenticationCode`, derived from the sealing key (so never the sealing key itself).
    private let macKey: [UInt8]

    /// A sealer with a 32-byte key.
    package init(key: [UInt8]) throws {
        box = try SecretBox(key: key)
        macKey = HMACSHA256.authenticationCode(for: Array("herald-server-mac".utf8), key: key)
    }

    /// An HMAC of `message` for `purpose` under a key only this server holds: a value apps cannot work out, even
    /// with everything an app holds (its business secret).
    package func authenticationCode(for message: [UInt8], purpose: SealPurpose) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array(purpose.rawValue.utf8) + [0] + message, key: macKey)
    }

    /// Seals `plaintext` for `purpose`.
    package func seal(_ plaintext: [UInt8], purpose: SealPurpose) throws -> [UInt8] {
        try box.seal(plaintext, associatedData: Array(purpose.rawValue.utf8))
    }

    /// Opens what `seal` sealed for the same purpose; throws if the key or purpose differ.
    package func open(_ sealed: [UInt8], purpose: SealPurpose) throws -> [UInt8] {
        try box.open(sealed, associatedData: Array(purpose.rawValue.utf8))
    }
}
