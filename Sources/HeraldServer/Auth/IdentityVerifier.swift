import HeraldCrypto
import HeraldModel
import HeraldStore

/// What lets an install claim to belong to a user (`PUT /api/v1/device/user`): the business's backend vouches for the
/// external id with `identity_token`, the lowercase hex HMAC-SHA256 of the id's UTF-8 keyed with the business's
/// identity key. The app never holds that key (an app's secrets are anyone's who unpacks it), so an install can claim
/// only the ids its backend signed — the user who logged in — and never read another user's messages.
///
/// The identity key is derived from the server's own key and the business (nothing to store): the same on every node
/// and every restart, shown to the admin API only (`GET /api/admin/businesses/{id}/identity-key`).
///
/// ```swift
/// let key = verifier.key(for: business.id)                      // for the business's backend
/// verifier.vouches(token: token, for: "cust-42", businessID: business.id)
/// ```
struct IdentityVerifier: Sendable {
    let sealer: SecretSealer

    /// The purpose the key is derived for.
    static let purpose = "identity-key"

    /// The business's identity key: 32 bytes, base64url (43 characters). Its UTF-8 text is the HMAC key.
    func key(for businessID: Int64) -> String {
        Base64URL.encode(sealer.authenticationCode(for: Array(String(businessID).utf8), purpose: Self.purpose))
    }

    /// True when `token` is the HMAC of `externalID` under `businessID`'s identity key (compared in constant time).
    func vouches(token: String, for externalID: String, businessID: Int64) -> Bool {
        guard token.utf8.count == 64, let offered = Hex.decode(token.lowercased()) else { return false }
        let expected = HMACSHA256.authenticationCode(
            for: Array(externalID.utf8), key: Array(key(for: businessID).utf8))
        return ConstantTime.equals(offered, expected)
    }
}
