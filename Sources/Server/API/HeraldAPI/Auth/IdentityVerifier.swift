import HeraldCrypto
import HeraldHTTPServer
import HeraldModel
import HeraldDomain

/// What lets an install claim to belong to a user (`PUT /api/v1/device/user`, or a registration's proof): the
/// business's backend vouches for the external id with `identity_token`, the lowercase hex HMAC-SHA256 of the id's
/// UTF-8 keyed with one of the business's identity keys, named by the token (`<kid>.<hex>`). The app never holds a
/// key (an app's secrets are anyone's who unpacks it), so an install can claim only the ids its backend signed — the
/// user who logged in — and never read another user's messages.
///
/// The keys are the domain's (`IdentityKeyService`): every business has its original key (`kid` `original`, shown
/// to the admin API by `GET /api/admin/businesses/{id}/identity-key`); a bare hex token, as tokens were made before
/// keys could be rotated, is that key's. Keys added since are random, sealed in the store and shown once. Each
/// vouches until it is retired, on every node at once.
///
/// ```swift
/// let key = verifier.keys.originalKey(for: business.id)               // for the business's backend
/// try verifier.vouches(token: token, for: "cust-42", businessID: business.id)
/// ```
struct IdentityVerifier: Sendable {
    /// The business's keys.
    let keys: IdentityKeyService

    /// The `kid` of the original key.
    static let originalKID = IdentityKeyService.originalKID
    /// The answer to a `kid` the business has no key of.
    static let unknownKey = HTTPError(.notFound, field: "kid", "is no identity key of this business")
    /// Why a token does not vouch, as answered on `identity_token`.
    static let refusal =
        "does not vouch for external_id: the hex HMAC-SHA256 of the external_id under a live identity key of the "
        + "business, as <kid>.<hex> (a bare <hex> for the original key)"

    /// True when `token` is the HMAC of `externalID` under the live key of `businessID` it names (compared in
    /// constant time); false for a key unknown or retired.
    func vouches(token: String, for externalID: String, businessID: Int64) throws -> Bool {
        let (kid, mac) = Self.parse(token)
        guard mac.utf8.count == 64, kid.utf8.count <= 64, let offered = Hex.decode(mac.lowercased()),
            let key = try liveKey(kid, of: businessID)
        else { return false }
        let expected = HMACSHA256.authenticationCode(for: Array(externalID.utf8), key: Array(key.utf8))
        return ConstantTime.equals(offered, expected)
    }

    /// The text of the key `kid` of `businessID` while it vouches; nil when it is unknown or retired.
    func liveKey(_ kid: String, of businessID: Int64) throws -> String? { try keys.liveKey(kid, of: businessID) }

    /// The key a token names and its hex: `<kid>.<hex>`, or a bare `<hex>` (the original key's).
    static func parse(_ token: String) -> (kid: String, mac: Substring) {
        guard let dot = token.firstIndex(of: ".") else { return (originalKID, token[...]) }
        return (String(token[..<dot]), token[token.index(after: dot)...])
    }
}
