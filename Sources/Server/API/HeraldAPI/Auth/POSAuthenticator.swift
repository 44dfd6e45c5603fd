import HeraldDomain
import HeraldEntities
import HeraldHTTPServer

/// Finds the business whose POS key the caller presents (`Authorization: Bearer <pos_key>`).
struct POSAuthenticator: Sendable {
    let access: AccessService
    /// The per-key rate limit.
    var limits: RateLimits = .unlimited

    /// The business; 401 without a key or with one no business has.
    func business(_ request: HTTPRequest) throws -> Business {
        guard let key = request.bearerToken else {
            throw HTTPError(
                .unauthorized, field: "base", "missing POS key (Authorization: Bearer <pos_key>)",
                headers: [("www-authenticate", "Bearer")])
        }
        let keyHash = AccessTokens.hash(key)
        try limits.posPerKey.check(keyHash)
        guard let business = try access.business(posKeyHash: keyHash) else {
            throw HTTPError(.unauthorized, field: "base", "invalid POS key", headers: [("www-authenticate", "Bearer")])
        }
        return business
    }
}
