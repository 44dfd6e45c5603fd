import HeraldCrypto

/// Random bearer tokens and their stored form: tokens are shown once and kept only as SHA-256 hashes.
package enum AccessTokens {
    /// A new random token with `prefix` (32 random bytes, base64url).
    package static func generate(prefix: String) -> String {
        prefix + Base64URL.encode(SecureRandom.bytes(count: 32))
    }

    /// The stored form of `token`: lowercase hex SHA-256.
    package static func hash(_ token: String) -> String {
        Hex.encode(SHA256.hash(Array(token.utf8)))
    }

    /// Compares two secrets in constant time (over their hashes, so lengths don't leak either).
    package static func equal(_ a: String, _ b: String) -> Bool {
        ConstantTime.equals(SHA256.hash(Array(a.utf8)), SHA256.hash(Array(b.utf8)))
    }
}
