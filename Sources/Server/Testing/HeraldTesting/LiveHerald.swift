import Foundation
import HeraldCrypto
import HeraldDelivery
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldServer
import HeraldAPI
import HeraldHTTPServer
import HeraldStore
import Synchronization
import Testing

/// A whole Herald running in this process, with its own data directory: what HTTP tests talk to. Its workers (the
/// delivery engine, the scheduler, the campaign runner) run as in `herald serve`; its API is called in process by
/// default (`Transport.inProcess`: each request handed to the HTTP server's code without a socket), or over a port
/// of its own (`Transport.socket`, for tests of what only a connection has: tag them `.endToEnd`).
///
/// ```swift
/// let herald = try LiveHerald()
/// let business = try herald.createBusiness()
/// let app = herald.mobileClient(for: business)
/// let session = try app.signUp(email: "ann@example.com")
/// ```
public final class LiveHerald: Sendable {
    /// How tests reach its API.
    public enum Transport: Sendable {
        /// Requests handed to the HTTP server in this process (`HTTPServer.respond(inProcess:peer:)`): no port is
        /// bound unless `port` is asked for.
        case inProcess
        /// A free port, bound at start, and HTTP/1.1 over TCP.
        case socket
    }

    /// The running application.
    public let application: HeraldApplication
    /// Its data directory (removed when this is released).
    public let directory: TemporaryDirectory
    /// How tests reach its API.
    public let transport: Transport
    /// The port it listens on. An in-process Herald binds one when first asked (a test that needs a socket after
    /// all; its links keep naming `http://herald.test`); `isListening` tells whether it did.
    public var port: Int {
        listening.withLock { listening in
            if !listening {
                do {
                    try application.bind()
                    Self.bindings.add(1, ordering: .relaxed)
                    listening = true
                } catch {
                    Issue.record("LiveHerald cannot bind a port: \(error)")
                }
            }
        }
        return application.port
    }
    /// Whether it listens on a port (from the start with `Transport.socket`; in process, once `port` was asked).
    public var isListening: Bool { listening.withLock { $0 } }
    /// How many ports the Herald of this process bound so far, all together: what in-process tests keep at zero.
    public static var portsBound: Int { bindings.load(ordering: .relaxed) }
    private static let bindings = Atomic<Int>(0)
    private let listening = Mutex<Bool>(false)
    /// The admin token.
    public var adminToken: String { application.adminToken }
    /// Its store.
    public var store: Store { application.store }
    private let group: WorkerGroup
    private let stopped: CommitWaiter.Flag

    /// Starts Herald; `configure` may change the test configuration (a cheap password hash, delivery off,
    /// logs silenced) before it starts. `providers` replaces Apple's and Google's (with a `RecordingPushProvider`,
    /// say); by default delivery goes where the configuration points (a stand-in).
    public init(
        transport: Transport = .inProcess, logLevel: Logger.Level = .critical, clock: WallClock = .system,
        configure: (inout HeraldConfiguration) -> Void = { _ in },
        providers: ((CredentialLoader) throws -> [any PushProvider])? = nil
    ) throws {
        self.transport = transport
        directory = try TemporaryDirectory(prefix: "herald-live")
        var configuration = HeraldConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory.path
        configuration.passwordCost = 1024
        configuration.logLevel = logLevel
        configuration.httpThreads = 4
        // Tests sign many users up from one address at once: limits off unless a test sets them.
        configuration.authPerAddressPerMinute = 0
        configuration.authFailuresPerAccount = 0
        configuration.mobilePerBusinessPerSecond = 0
        configuration.mobilePerUserPerSecond = 0
        configuration.devicePerInstallPerMinute = 0
        configuration.installsPerAddressPerMinute = 0
        configuration.posPerKeyPerSecond = 0
        configuration.passwordThreads = 64
        configuration.connectionsPerAddress = 10_000
        // In process, links name the host its clients send (`TestHTTPClient`'s `herald.test`): there is no port.
        if transport == .inProcess { configuration.publicURL = "http://herald.test" }
        configure(&configuration)
        let logger = Logger(label: "herald", level: logLevel)
        application = try Composition.application(configuration, logger: logger, clock: clock, providers: providers)
        if transport == .socket {
            try application.bind()
            Self.bindings.add(1, ordering: .relaxed)
            listening.withLock { $0 = true }
        }
        // In process, the HTTP server is not a worker: it would bind when run. A port bound later (`port`) is
        // closed by `stop`.
        let server = application.server
        let workers = application.workers.filter { transport == .socket || ($0.worker as AnyObject) !== server }
        let group = WorkerGroup(workers, logger: logger)
        let stopped = CommitWaiter.Flag()
        self.group = group
        self.stopped = stopped
        // On a thread of its own, so that tests blocking the shared pool cannot keep it from starting or stopping.
        let executor = WorkerExecutor(name: "herald-live")
        Task(executorPreference: executor) {
            try? await group.run()
            stopped.set()
            executor.shutdown()
        }
    }

    deinit { stop() }

    /// Stops Herald as SIGTERM does (the API, the scheduler, then the engine, each gracefully) and waits until it
    /// has. Idempotent.
    public func stop() {
        if transport == .inProcess && isListening { application.server.shutdown() }
        group.stop()
        stopped.wait()
    }

    /// A new client of the server (over its transport: in process, or a connection of its own), checking every
    /// answer against docs/openapi.json (`OpenAPIValidator`).
    public func client() -> TestHTTPClient {
        let client =
            transport == .socket ? TestHTTPClient(port: port) : TestHTTPClient(.inProcess(application.server))
        client.validator = .shared
        return client
    }

    /// An admin API call.
    public func admin(_ method: String, _ path: String, json: String? = nil) throws -> TestHTTPClient.Response {
        let client = client()
        let headers = [("Authorization", "Bearer \(adminToken)")]
        if let json { return try client.request(method, path, headers: headers, json: json) }
        return try client.request(method, path, headers: headers)
    }

    /// What `POST /api/admin/businesses` answered.
    public struct BusinessKeys: Sendable {
        /// The business id.
        public let id: Int64
        /// The app's client id.
        public let client: String
        /// The app's signing secret.
        public let secret: String
        /// The POS key.
        public let posKey: String
        /// The device API's live key (`api_key`).
        public let apiKey: String
        /// The device API's sandbox key (`sandbox_api_key`).
        public let sandboxAPIKey: String

        /// The keys in `response`, the answer of `POST /api/admin/businesses` (of this Herald or any other).
        public init(created response: TestHTTPClient.Response) throws {
            guard response.status == 201, let object = response.json as? [String: Any],
                let id = object["id"] as? Int, let client = object["client"] as? String,
                let secret = object["secret"] as? String, let posKey = object["pos_key"] as? String,
                let apiKey = object["api_key"] as? String, let sandboxAPIKey = object["sandbox_api_key"] as? String
            else { throw TestHTTPClient.Failure(description: "cannot create business: \(response)") }
            (self.id, self.client, self.secret, self.posKey) = (Int64(id), client, secret, posKey)
            (self.apiKey, self.sandboxAPIKey) = (apiKey, sandboxAPIKey)
        }
    }

    /// Creates a business through the admin API.
    public func createBusiness(name: String = "Burger Co") throws -> BusinessKeys {
        try BusinessKeys(
            created: admin(
                "POST", "/api/admin/businesses", json: JSON.object([("name", .string(name))]).encodedString))
    }

    /// A mobile API client signing as `business`'s app (over `http`: a connection of its own to this server, or to
    /// a proxy in front of it).
    public func mobileClient(for business: BusinessKeys, deviceID: String? = nil, http: TestHTTPClient? = nil)
        -> MobileTestClient
    {
        MobileTestClient(http: http ?? client(), business: business, deviceID: deviceID)
    }
}

/// Calls the mobile API as an app would: the `client` in the body, `x-pch-digest` over target and body,
/// the bearer token once signed in.
public final class MobileTestClient: @unchecked Sendable {
    /// The connection.
    public let http: TestHTTPClient
    /// The business signed as.
    public let business: LiveHerald.BusinessKeys
    /// `punchh-app-device-id`, if the app sends one.
    public var deviceID: String?
    /// The access token, once signed up or logged in.
    public var accessToken: String?
    /// The signed-in user's id.
    public var userID: Int64?

    /// A client of `business`'s app over `http` (to any Herald, or a proxy in front of one).
    public init(http: TestHTTPClient, business: LiveHerald.BusinessKeys, deviceID: String? = nil) {
        self.http = http
        self.business = business
        self.deviceID = deviceID
    }

    /// The digest a correct app sends.
    public static func digest(target: String, body: [UInt8], secret: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: Array(target.utf8) + body, key: Array(secret.utf8)))
    }

    /// A signed call. `body` is sent as given; `digest` overrides the computed one (nil computes it, "" omits it).
    public func call(
        _ method: String, _ target: String, body: String = "", digest: String? = nil, headers: [(String, String)] = []
    ) throws -> TestHTTPClient.Response {
        let bytes = Array(body.utf8)
        var all = headers
        let signature = digest ?? Self.digest(target: target, body: bytes, secret: business.secret)
        if !signature.isEmpty { all.append(("x-pch-digest", signature)) }
        if let accessToken { all.append(("Authorization", "Bearer \(accessToken)")) }
        if let deviceID { all.append(("punchh-app-device-id", deviceID)) }
        all.append(("User-Agent", "HeraldTests/1.0 (iPhone; iOS 18.0)"))
        if !bytes.isEmpty { all.append(("Content-Type", "application/json")) }
        return try http.request(method, target, headers: all, body: bytes)
    }

    /// A signed call whose JSON body gets `"client"` added.
    public func call(_ method: String, _ target: String, json: [(String, JSON)]) throws -> TestHTTPClient.Response {
        try call(
            method, target,
            body: JSON.object([("client", .string(business.client))] + json.map { ($0.0, $0.1) }).encodedString)
    }

    /// Signs up; keeps the token and user id. `token` is an `apn_token` (or `gcm_token` when `android`).
    @discardableResult
    public func signUp(
        email: String, password: String = "password123", firstName: String = "Ann", token: String? = nil,
        android: Bool = false
    ) throws -> TestHTTPClient.Response {
        var user: [(key: String, value: JSON)] = [
            ("first_name", .string(firstName)), ("last_name", "Lee"), ("email", .string(email)),
            ("password", .string(password)), ("password_confirmation", .string(password)),
        ]
        if let token { user.append((android ? "gcm_token" : "apn_token", .string(token))) }
        let response = try call("POST", "/api2/mobile/users", json: [("user", .object(user))])
        remember(response)
        return response
    }

    /// Logs in; keeps the token and user id.
    @discardableResult
    public func logIn(email: String, password: String = "password123", token: String? = nil, android: Bool = false)
        throws -> TestHTTPClient.Response
    {
        var user: [(key: String, value: JSON)] = [("email", .string(email)), ("password", .string(password))]
        if let token { user.append((android ? "gcm_token" : "apn_token", .string(token))) }
        let response = try call("POST", "/api2/mobile/users/login", json: [("user", .object(user))])
        remember(response)
        return response
    }

    private func remember(_ response: TestHTTPClient.Response) {
        guard response.status == 200, let object = response.json as? [String: Any],
            let token = (object["access_token"] as? [String: Any])?["token"] as? String,
            let user = (object["user"] as? [String: Any])?["user_id"] as? Int
        else { return }
        accessToken = token
        userID = Int64(user)
    }

    /// The inbox, newest first.
    public func notifications(quantity: Int = 10) throws -> TestHTTPClient.Response {
        try call("GET", "/api2/mobile/notifications?client=\(business.client)&qty=\(quantity)")
    }

    /// Marks inbox entries read (`PUT /api2/mobile/offers/mark_read`) with `event` (`read_through_app` or
    /// `app_open_via_push`).
    public func markRead(_ ids: [Int64], event: String = "read_through_app") throws -> TestHTTPClient.Response {
        try call(
            "PUT", "/api2/mobile/offers/mark_read",
            json: [
                ("event_type", .string(event)),
                ("user_notifications", .string(ids.map(String.init).joined(separator: ","))),
            ])
    }
}

/// A random APNs device token (64 hex digits).
public func randomAPNsToken() -> String { Hex.encode(SecureRandom.bytes(count: 32)) }

/// A random FCM registration token.
public func randomFCMToken() -> String { "fcm:" + Base64URL.encode(SecureRandom.bytes(count: 96)) }

/// A wall clock a test can move forward (the system's time plus an offset).
public final class TestClock: Sendable {
    private let offset = Mutex<Int64>(0)

    /// A clock at the system's time.
    public init() {}

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        offset.withLock { $0 += milliseconds }
    }

    /// The clock to hand to Herald.
    public var wallClock: WallClock {
        WallClock { [self] in
            Timestamp(milliseconds: WallClock.system.now().milliseconds + offset.withLock { $0 })
        }
    }
}
