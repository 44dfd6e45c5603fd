import HeraldCrypto
import HeraldModel

/// The provider authentication token (ES256 JWT) of one credential: signed once and reused across requests
/// and connections, re-signed when it reaches `refreshAge` (Apple accepts tokens up to an hour old and
/// refuses refreshes more often than every 20 minutes), or at once when Apple says it expired.
struct APNsTokenCache {
    /// Age at which a token is replaced: between Apple's 20-minute floor and 60-minute ceiling.
    static let refreshAge: Int64 = 45 * 60

    private(set) var token: String?
    private(set) var issuedAt: Int64 = 0

    /// The token to use at `now` (seconds), signing a new one when there is none or it is `refreshAge` old.
    mutating func current(for credential: APNsCredential, now: Int64) throws -> String {
        if let token, now - issuedAt < Self.refreshAge, now >= issuedAt { return token }
        let header = #"{"alg":"ES256","kid":"\#(credential.keyID)"}"#
        let claims = #"{"iss":"\#(credential.teamID)","iat":\#(now)}"#
        let fresh = try JWT.signES256(headerJSON: header, claimsJSON: claims, key: credential.key)
        token = fresh
        issuedAt = now
        return fresh
    }

    /// Apple answered ExpiredProviderToken for `token`: drop it if it is still the current one.
    mutating func expired(_ rejected: String) {
        if token == rejected { token = nil }
    }
}
