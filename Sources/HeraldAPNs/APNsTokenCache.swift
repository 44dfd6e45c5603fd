import HeraldCrypto
import HeraldDelivery
import HeraldModel

/// The provider authentication token (ES256 JWT) of one credential: one for every request, connection, node and
/// restart. It is taken from the shared store (`ProviderTokenStore`) while younger than `refreshAge`; past that one
/// node at a time signs the next and stores it for the others. Apple accepts a token up to an hour old and refuses a
/// key's new one within 20 minutes of the last (`TooManyProviderTokenUpdates`), so a process that signed its own on
/// every start would be refused after a restart.
struct APNsTokenCache {
    /// Age at which a token is replaced: between Apple's 20-minute floor and 60-minute ceiling.
    static let refreshAge: Int64 = 45 * 60
    /// Age up to which a stored token is still used while another node signs its successor.
    static let graceAge: Int64 = 55 * 60
    /// How long a node renewing the token holds the renewal before another may.
    static let renewalLease: Int64 = 30

    /// `bearer <token>`, the `authorization` header value, built once per token.
    private(set) var authorization: String?
    private(set) var issuedAt: Int64 = 0
    /// When to look at the shared store again (seconds).
    private var useUntil: Int64 = 0
    /// A token Apple said expired: not taken from the store again.
    private var rejected: String?

    /// Why no token can be had now: another node is signing the next one and none that Apple still accepts is
    /// stored. Not the credential's fault; its pushes wait a moment.
    struct Renewing: Error {}

    /// The `authorization` header value held, while it is fresh enough to use at `now` (seconds).
    func current(at now: Int64) -> String? {
        guard let authorization, now < useUntil, now >= issuedAt else { return nil }
        return authorization
    }

    /// The `authorization` header value to use at `now` (seconds): the shared one while it is young enough, else
    /// one signed here (when this node gets to renew it) and shared. The store failing does not stop sending: the
    /// token is then signed here and kept here.
    mutating func authorization(
        for credential: APNsCredential, businessID: Int64, shared: any ProviderTokenStore, now: Int64
    ) throws -> String {
        if let current = current(at: now) { return current }
        let stored = (try? shared.token(businessID: businessID, platform: .apns)).flatMap { token in
            token.credentialVersion == credential.version && token.token != rejected ? token : nil
        }
        if let stored,
            adopt(stored, youngerThan: Self.refreshAge, now: now, useUntil: stored.issuedAt.seconds + Self.refreshAge)
        {
            return stored.token
        }
        let mayRenew =
            (try? shared.beginRenewal(
                businessID: businessID, platform: .apns,
                until: Timestamp(milliseconds: (now + Self.renewalLease) * 1000),
                at: Timestamp(milliseconds: now * 1000))) ?? true
        guard mayRenew else {
            if let stored, adopt(stored, youngerThan: Self.graceAge, now: now, useUntil: now + 5) {
                return stored.token
            }
            throw Renewing()
        }
        let header = #"{"alg":"ES256","kid":"\#(credential.keyID)"}"#
        let claims = #"{"iss":"\#(credential.teamID)","iat":\#(now)}"#
        let fresh = "bearer " + (try JWT.signES256(headerJSON: header, claimsJSON: claims, key: credential.key))
        (authorization, issuedAt, useUntil) = (fresh, now, now + Self.refreshAge)
        try? shared.save(
            SharedProviderToken(
                token: fresh, credentialVersion: credential.version, issuedAt: Timestamp(milliseconds: now * 1000),
                expiresAt: Timestamp(milliseconds: (now + 3600) * 1000)),
            businessID: businessID, platform: .apns)
        return fresh
    }

    /// Uses `stored` if it is younger than `age` at `now`, until `until` (seconds).
    private mutating func adopt(
        _ stored: SharedProviderToken, youngerThan age: Int64, now: Int64, useUntil until: Int64
    )
        -> Bool
    {
        let issued = stored.issuedAt.seconds
        guard issued <= now, now - issued < age else { return false }
        (authorization, issuedAt, useUntil) = (stored.token, issued, until)
        return true
    }

    /// Takes the shared token if it is another than `refused` and young enough: true when there is one to send with.
    mutating func adoptShared(
        _ credential: APNsCredential, businessID: Int64, shared: any ProviderTokenStore, refused: String, now: Int64
    ) -> Bool {
        guard let stored = try? shared.token(businessID: businessID, platform: .apns),
            stored.credentialVersion == credential.version, stored.token != refused
        else { return false }
        return adopt(stored, youngerThan: Self.graceAge, now: now, useUntil: now + 60)
    }

    /// Apple answered ExpiredProviderToken to a request sent with `rejected`: drop it if it is still current.
    mutating func expired(_ rejected: String) {
        self.rejected = rejected
        if authorization == rejected { authorization = nil }
    }
}
