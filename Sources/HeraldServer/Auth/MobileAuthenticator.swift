import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldStore
import Synchronization

/// Identifies the app and the user behind a mobile API call: the `client` names the business, the
/// `x-pch-digest` proves the caller holds the business secret, and the bearer token names the session.
final class MobileAuthenticator: Sendable {
    /// A business with its signing secret opened.
    struct Client: Sendable {
        let business: Business
        let secret: [UInt8]
    }

    private let store: any Store
    private let sealer: SecretSealer
    private let clock: WallClock
    private let cache = Mutex<[String: (client: Client, expires: Timestamp)]>([:])
    private static let cacheLifetime: Duration = .seconds(30)

    /// Sessions recently looked up, so that an app's burst of calls, or an inbox polled again, does not start
    /// a database read each: on this machine that read is most of a signed-in call's cost (see
    /// bench/RESULTS.md). An entry holds only while this process has committed no write since it was read —
    /// a logout, a new inbox entry, a read mark are seen at once — and for at most `sessionLifetime`, which
    /// bounds how long another node's logout takes to be seen here.
    private let sessions = Mutex<[String: CachedSession]>([:])
    private struct CachedSession {
        let session: Session
        let user: User
        let changeCount: UInt64
        let expires: Timestamp
    }
    static let sessionLifetime: Duration = .seconds(1)
    private static let sessionCacheLimit = 10_000

    init(store: any Store, sealer: SecretSealer, clock: WallClock) {
        self.store = store
        self.sealer = sealer
        self.clock = clock
    }

    /// The calling app's business, after checking the request's signature. 400 without `client`,
    /// 401 for an unknown one, 412 for a missing or wrong digest.
    func client(_ request: HTTPRequest, _ parameters: RequestParameters) throws -> Client {
        guard let clientID = parameters.string("client") ?? request.header("x-pch-client"), !clientID.isEmpty else {
            throw HTTPError(.badRequest, field: "client", "can't be blank")
        }
        guard let client = try lookup(clientID) else { throw HTTPError(.unauthorized, field: "client", "is unknown") }
        try verifyDigest(request, secret: client.secret)
        return client
    }

    private func lookup(_ clientID: String) throws -> Client? {
        let now = clock.now()
        if let cached = cache.withLock({ $0[clientID] }), cached.expires > now { return cached.client }
        guard let business = try store.business(clientID: clientID) else { return nil }
        let secret = try sealer.open(business.sealedSecret, purpose: "business-secret")
        let client = Client(business: business, secret: secret)
        cache.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[clientID] = (client, now.adding(Self.cacheLifetime))
        }
        return client
    }

    /// The digest a correct client sends: HMAC-SHA256 over the request target followed by the raw body.
    static func digest(target: String, body: [UInt8], secret: [UInt8]) -> [UInt8] {
        var message = Array(target.utf8)
        message.append(contentsOf: body)
        return HMACSHA256.authenticationCode(for: message, key: secret)
    }

    private func verifyDigest(_ request: HTTPRequest, secret: [UInt8]) throws {
        guard let header = request.header("x-pch-digest"), !header.isEmpty else {
            throw HTTPError(.preconditionFailed, field: "invalid_signature", "missing x-pch-digest header")
        }
        let expected = Self.digest(target: request.target, body: request.body, secret: secret)
        guard let offered = Hex.decode(header.lowercased()), ConstantTime.equals(offered, expected) else {
            throw HTTPError(.preconditionFailed, field: "invalid_signature", "x-pch-digest does not match the request")
        }
    }

    /// The signed-in user's session; 401 without a bearer token or with one that is unknown, expired,
    /// revoked or issued for another business.
    func session(_ request: HTTPRequest, client: Client) throws -> (session: Session, user: User) {
        guard let token = request.bearerToken else {
            throw HTTPError(.unauthorized, field: "base", "You need to sign in or sign up before continuing.")
        }
        guard let (session, user) = try sessionWithUser(tokenHash: AccessTokens.hash(token)),
            session.businessID == client.business.id, user.businessID == client.business.id,
            session.isActive(at: clock.now())
        else {
            throw HTTPError(.unauthorized, field: "base", "Invalid or expired access token.")
        }
        return (session, user)
    }

    private func sessionWithUser(tokenHash: String) throws -> (session: Session, user: User)? {
        // Taken before reading: a write committed meanwhile makes the entry stale at once, never the reverse.
        guard let changeCount = store.localChangeCount else { return try store.sessionWithUser(tokenHash: tokenHash) }
        let now = clock.now()
        if let hit = sessions.withLock({ $0[tokenHash] }), hit.changeCount == changeCount, hit.expires > now {
            return (hit.session, hit.user)
        }
        guard let (session, user) = try store.sessionWithUser(tokenHash: tokenHash) else { return nil }
        let entry = CachedSession(
            session: session, user: user, changeCount: changeCount, expires: now.adding(Self.sessionLifetime))
        sessions.withLock { cache in
            if cache.count >= Self.sessionCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[tokenHash] = entry
        }
        return (session, user)
    }
}
