import HeraldCrypto
import HeraldModel

/// The provider authentication token (ES256 JWT) of one credential: signed once and reused across requests
/// and connections, re-signed when it reaches `refreshAge` (Apple accepts tokens up to an hour old and
/// refuses refreshes more often than every 20 minutes), or at once when Apple says it expired.
struct APNsTokenCache {
    /// Age at which a token is replaced: between Apple's 20-minute floor and 60-minute ceiling.
    static let refreshAge: Int64 = 45 * 60

    /// `bearer <token>`, the `authorization` header value, built once per token.
    private(set) var authorization: String?
    private(set) var issuedAt: Int64 = 0

    /// The `authorization` header value to use at `now` (seconds), signing a new token when there is none or it
    /// is `refreshAge` old.
    mutating func authorization(for credential: APNsCredential, now: Int64) throws -> String {
        if let current = current(at: now) { return current }
        let header = #"{"alg":"ES256","kid":"\#(credential.keyID)"}"#
        let claims = #"{"iss":"\#(credential.teamID)","iat":\#(now)}"#
        let fresh = "bearer " + (try JWT.signES256(headerJSON: header, claimsJSON: claims, key: credential.key))
        authorization = fresh
        issuedAt = now
        return fresh
    }

    /// The `authorization` header value held, while it is fresh enough to use at `now` (seconds).
    func current(at now: Int64) -> String? {
        guard let authorization, now - issuedAt < Self.refreshAge, now >= issuedAt else { return nil }
        return authorization
    }

    /// Apple answered ExpiredProviderToken to a request sent with `rejected`: drop it if it is still current.
    mutating func expired(_ rejected: String) {
        if authorization == rejected { authorization = nil }
    }
}
