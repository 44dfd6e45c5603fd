import HeraldDeliveryPorts
import HeraldCrypto
import HeraldDelivery
import HeraldModel

/// The provider authentication token (ES256 JWT) of one key: one for every request, connection, node, restart and
/// business holding the key (`APNsKeyTokens`). It is taken from the shared store (`ProviderTokenStore`, by the key's
/// fingerprint) while younger than `refreshAge`; past that one node at a time signs the next and stores it for the
/// others. Apple accepts a token up to an hour old and refuses a
/// key's new one within 20 minutes of the last (`TooManyProviderTokenUpdates`), so a process that signed its own on
/// every start would be refused after a restart.
///
/// The store may be a database round trip away, so the lock its owner keeps the cache under is not held across it:
/// `next` decides under the lock, the `Fetch` it hands out goes to the store without it, and `fetched` takes the
/// outcome back under it (`APNsProvider.complete`). One fetch at a time per cache; a push asking meanwhile keeps the
/// held token while Apple still takes it.
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
    /// Whether a `Fetch` handed out has not come back to `fetched` yet.
    private var fetching = false

    /// Why no token can be had now: another node (or another thread of this one) is signing the next one and none
    /// that Apple still accepts is held. Not the credential's fault; its pushes wait a moment.
    struct Renewing: Error {}

    /// What a push does for its token.
    enum Next {
        /// Send with this `authorization` header value.
        case use(String)
        /// Perform this, without the lock, and hand its outcome to `fetched`.
        case fetch(Fetch)
    }

    /// A token as the store or the signer gave it, and until when to use it (seconds).
    struct Fetched: Sendable {
        let authorization: String
        let issuedAt: Int64
        let useUntil: Int64

        init(authorization: String, issuedAt: Int64, useUntil: Int64) {
            (self.authorization, self.issuedAt, self.useUntil) = (authorization, issuedAt, useUntil)
        }

        /// `stored`, if it is younger than `age` at `now`, to use until `useUntil` (seconds).
        init?(_ stored: SharedProviderToken, youngerThan age: Int64, at now: Int64, useUntil: Int64) {
            let issued = stored.issuedAt.seconds
            guard issued <= now, now - issued < age else { return nil }
            self.init(authorization: stored.token, issuedAt: issued, useUntil: useUntil)
        }
    }

    /// The `authorization` header value held, while it is fresh enough to use at `now` (seconds).
    func current(at now: Int64) -> String? {
        guard let authorization, now < useUntil, now >= issuedAt else { return nil }
        return authorization
    }

    /// What a push does at `now` (seconds) for its token: the held one while it is fresh, else a fetch, one at a
    /// time; while one is out the held token serves up to `graceAge`.
    mutating func next(at now: Int64) throws -> Next {
        if let current = current(at: now) { return .use(current) }
        guard !fetching else {
            if let authorization, now >= issuedAt, now - issuedAt < Self.graceAge { return .use(authorization) }
            throw Renewing()
        }
        fetching = true
        return .fetch(Fetch(rejected: rejected))
    }

    /// The `Fetch` handed out came back with `fetched` (nil: it failed): held from now on, unless Apple refused it
    /// meanwhile.
    mutating func fetched(_ fetched: Fetched?) {
        guard fetching else { return }
        fetching = false
        guard let fetched, fetched.authorization != rejected else { return }
        hold(fetched)
    }

    private mutating func hold(_ token: Fetched) {
        (authorization, issuedAt, useUntil) = (token.authorization, token.issuedAt, token.useUntil)
    }

    /// The store's part of getting a token, done without the cache's lock.
    struct Fetch: Sendable {
        /// The token Apple last said expired.
        let rejected: String?

        /// The token to use at `now` (seconds): the shared one while it is young enough, else one signed here (when
        /// this node gets to renew it) and shared. The store failing does not stop sending: the token is then
        /// signed here and kept here.
        func perform(
            for credential: APNsCredential, businessID: Int64, shared: any ProviderTokenStore, now: Int64
        ) throws -> Fetched {
            let key = ProviderTokenKey.signingKey(credential.keyFingerprint, .apns)
            let stored = APNsTokenCache.stored(for: credential, businessID: businessID, shared: shared).flatMap {
                $0.token != rejected ? $0 : nil
            }
            let (refreshAge, graceAge) = (APNsTokenCache.refreshAge, APNsTokenCache.graceAge)
            if let stored,
                let taken = Fetched(
                    stored, youngerThan: refreshAge, at: now, useUntil: stored.issuedAt.seconds + refreshAge)
            {
                return taken
            }
            let mayRenew =
                (try? shared.beginRenewal(
                    key, until: Timestamp(milliseconds: (now + APNsTokenCache.renewalLease) * 1000),
                    at: Timestamp(milliseconds: now * 1000))) ?? true
            guard mayRenew else {
                if let stored, let taken = Fetched(stored, youngerThan: graceAge, at: now, useUntil: now + 5) {
                    return taken
                }
                throw Renewing()
            }
            let header = #"{"alg":"ES256","kid":"\#(credential.keyID)"}"#
            let claims = #"{"iss":"\#(credential.teamID)","iat":\#(now)}"#
            let fresh = "bearer " + (try JWT.signES256(headerJSON: header, claimsJSON: claims, key: credential.key))
            try? shared.save(
                SharedProviderToken(
                    token: fresh, credentialVersion: credential.version, issuedAt: Timestamp(milliseconds: now * 1000),
                    expiresAt: Timestamp(milliseconds: (now + 3600) * 1000)),
                for: key)
            return Fetched(authorization: fresh, issuedAt: now, useUntil: now + refreshAge)
        }
    }

    /// The token the nodes share for `credential`'s key; until one is stored, the one `businessID` stored for its
    /// credential of that version when tokens were kept by business (after an upgrade: the one Apple took last).
    static func stored(for credential: APNsCredential, businessID: Int64, shared: any ProviderTokenStore)
        -> SharedProviderToken?
    {
        if let keys = try? shared.token(.signingKey(credential.keyFingerprint, .apns)) { return keys }
        return (try? shared.token(.business(businessID, .apns))).flatMap {
            $0.credentialVersion == credential.version ? $0 : nil
        }
    }

    /// Takes `stored` (the shared token of the key, as `stored(for:businessID:shared:)` read it) if it is another than
    /// `refused` and young enough: true when there is one to send with.
    mutating func adoptShared(_ stored: SharedProviderToken?, refused: String, now: Int64) -> Bool {
        guard let stored, stored.token != refused,
            let taken = Fetched(stored, youngerThan: Self.graceAge, at: now, useUntil: now + 60)
        else { return false }
        hold(taken)
        return true
    }

    /// Apple answered ExpiredProviderToken to a request sent with `rejected`: drop it if it is still current.
    mutating func expired(_ rejected: String) {
        self.rejected = rejected
        if authorization == rejected { authorization = nil }
    }
}
