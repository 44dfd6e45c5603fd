/// Compact JWS tokens (RFC 7515) signed with ES256 or RS256: the provider tokens of APNs and the OAuth assertions
/// of Google service accounts.
///
/// The header and claims are passed as the exact JSON text to encode, so the caller controls field order and
/// formatting; the header's `alg` must name the algorithm used.
///
/// ```swift
/// let token = try JWT.signES256(
///     headerJSON: #"{"alg":"ES256","kid":"\#(keyID)"}"#,
///     claimsJSON: #"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#,
///     key: apnsKey)
/// ```
package enum JWT {
    /// `base64url(header).base64url(claims).base64url(signature)` with an ES256 signature (64-byte `r ‖ s`).
    ///
    /// Throws ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    package static func signES256(headerJSON: String, claimsJSON: String, key: P256PrivateKey) throws -> String {
        let input = signingInput(headerJSON: headerJSON, claimsJSON: claimsJSON)
        return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8)))
    }

    /// `base64url(header).base64url(claims).base64url(signature)` with an RS256 signature.
    ///
    /// Throws ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    package static func signRS256(headerJSON: String, claimsJSON: String, key: RSAPrivateKey) throws -> String {
        let input = signingInput(headerJSON: headerJSON, claimsJSON: claimsJSON)
        return input + "." + Base64URL.encode(try key.signatureRS256(for: Array(input.utf8)))
    }

    /// The JWS signing input, `base64url(header).base64url(claims)`.
    static func signingInput(headerJSON: String, claimsJSON: String) -> String {
        Base64URL.encode(headerJSON.utf8) + "." + Base64URL.encode(claimsJSON.utf8)
    }
}
