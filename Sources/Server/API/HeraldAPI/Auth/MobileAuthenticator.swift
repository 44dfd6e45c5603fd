import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldEntities
import HeraldModel
import Synchronization

/// Identifies the app and the user behind a mobile API call: the `client` names the business, the
/// `x-pch-digest` proves the caller holds the business secret, and the bearer token names the session.
final class MobileAuthenticator: Sendable {
    /// A business with its signing secret opened.
    struct Client: Sendable {
        let business: Business
        let secret: [UInt8]
    }

    private let access: AccessService
    private let clock: WallClock
    /// Businesses (with their opened secrets) and sessions recently looked up, so that an app's burst of calls,
    /// or an inbox polled again, does not start database reads each: on this machine that read is most of a
    /// signed-in call's cost (see bench/RESULTS.md). An entry holds only while this process has committed no
    /// write since it was read — a logout, a new inbox entry, a read mark, a settings change are seen at once —
    /// and for at most its lifetime, which bounds how long another node's writes take to be seen here.
    private let clients = RecentReads<Client>(lifetime: .seconds(30))
    private let sessions = RecentReads<(session: Session, user: User)>(lifetime: .seconds(1))

    private let limits: RateLimits

    init(access: AccessService, clock: WallClock, limits: RateLimits = .unlimited) {
        self.access = access
        self.clock = clock
        self.limits = limits
    }

    /// A mobile call's parameters (query and JSON body), once it is seen to carry a signature at all: a call
    /// without `x-pch-digest` is a 412 before anything else about it is looked at.
    func parameters(_ request: HTTPRequest) throws -> RequestParameters {
        guard request.header("x-pch-digest")?.isEmpty == false else { throw Self.missingDigest }
        return try RequestParameters(request)
    }

    private static let missingDigest = HTTPError(
        .preconditionFailed, field: "invalid_signature", "missing x-pch-digest header")

    /// The calling app's business, after checking the request's signature, for a call made before signing in (sign-up,
    /// login): charged to the business's bucket once the digest holds — a `client` is public, so unsigned junk
    /// naming it spends nothing — within the client address's fair share of it: the secret that signs is in every
    /// copy of the app, so one client flooding with it is refused its excess and the business's other users are not.
    /// 400 without `client`, 401 for an unknown one, 412 for a missing or wrong digest.
    func client(_ request: HTTPRequest, _ parameters: RequestParameters) throws -> Client {
        let client = try verifiedClient(request, parameters)
        try limits.mobilePerBusiness.check(group: client.business.clientID, member: request.remoteAddress ?? "-")
        return client
    }

    /// The calling app's business, its digest checked; nothing charged.
    private func verifiedClient(_ request: HTTPRequest, _ parameters: RequestParameters) throws -> Client {
        guard let clientID = parameters.string("client") ?? request.header("x-pch-client"), !clientID.isEmpty else {
            throw HTTPError(.badRequest, field: "client", "can't be blank")
        }
        guard let client = try lookup(clientID) else { throw HTTPError(.unauthorized, field: "client", "is unknown") }
        try verifyDigest(request, secret: client.secret)
        return client
    }

    private func lookup(_ clientID: String) throws -> Client? {
        try clients.value(for: clientID, changeCount: access.changeCount, clock: clock) {
            try access.client(clientID: clientID).map { Client(business: $0.business, secret: $0.secret) }
        }
    }

    /// The digest a correct client sends: HMAC-SHA256 over the request target followed by the raw body.
    static func digest(target: String, body: [UInt8], secret: [UInt8]) -> [UInt8] {
        var message = Array(target.utf8)
        message.append(contentsOf: body)
        return HMACSHA256.authenticationCode(for: message, key: secret)
    }

    private func verifyDigest(_ request: HTTPRequest, secret: [UInt8]) throws {
        guard let header = request.header("x-pch-digest"), !header.isEmpty else { throw Self.missingDigest }
        let expected = Self.digest(target: request.target, body: request.body, secret: secret)
        guard let offered = Hex.decode(header.lowercased()), ConstantTime.equals(offered, expected) else {
            throw HTTPError(.preconditionFailed, field: "invalid_signature", "x-pch-digest does not match the request")
        }
    }

    /// What a signed-in mobile call carries, checked: its parameters, the app's business (signature verified)
    /// and the user's session. Charged to the user's own bucket once all of it holds: one user's burst holds up
    /// nobody else of the business.
    func signedIn(_ request: HTTPRequest) throws -> (
        parameters: RequestParameters, client: Client, session: Session, user: User
    ) {
        let parameters = try parameters(request)
        let client = try verifiedClient(request, parameters)
        let (session, user) = try session(request, client: client)
        try limits.mobilePerUser.check(String(user.id))
        return (parameters, client, session, user)
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
        try sessions.value(for: tokenHash, changeCount: access.changeCount, clock: clock) {
            try access.session(tokenHash: tokenHash)
        }
    }
}
