import HeraldHTTPServer

/// Checks the admin API's bearer token.
struct AdminAuthenticator: Sendable {
    let token: String

    /// Throws 401 unless `request` carries `Authorization: Bearer <admin token>`.
    func authenticate(_ request: HTTPRequest) throws {
        guard let offered = request.bearerToken else {
            throw HTTPError(
                .unauthorized, field: "base", "missing admin bearer token", headers: [("www-authenticate", "Bearer")])
        }
        guard AccessTokens.equal(offered, token) else {
            throw HTTPError(
                .unauthorized, field: "base", "invalid admin token", headers: [("www-authenticate", "Bearer")])
        }
    }
}
