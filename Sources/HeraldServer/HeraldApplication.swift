import Foundation
import HeraldAPNs
import HeraldCrypto
import HeraldDelivery
import HeraldFCM
import HeraldHTTP
import HeraldModel
import HeraldObservability
import HeraldSQLite
import HeraldStore
import Synchronization

/// The whole platform in one process: HTTP API, delivery workers, scheduler. `herald serve` runs one;
/// tests run one in-process on port 0.
///
/// ```swift
/// let app = try HeraldApplication(configuration: configuration, logger: logger)
/// try app.start()
/// // … until SIGTERM …
/// app.shutdown()
/// ```
public final class HeraldApplication: @unchecked Sendable {
    /// The configuration it runs with.
    public let configuration: HeraldConfiguration
    /// The admin API's token.
    public let adminToken: String
    /// True when the admin token was generated at this start (print it once).
    public let adminTokenGenerated: Bool
    /// The store everything is kept in.
    public let store: any Store
    /// Metrics shown at `/metrics`.
    public let metrics = MetricsRegistry()
    private let logger: Logger
    private let clock: WallClock
    private let server: HTTPServer
    /// The port the server listens on, once it does (the configured one until then).
    private let boundPort: BoundPort
    private let sealer: SecretSealer
    /// The delivery workers (nil when delivery is off).
    public let delivery: DeliveryEngine?
    private let providers: [any PushProvider]
    private let scheduler: ReminderScheduler
    /// Every route served, as (method, pattern): the OpenAPI document is checked against it.
    public let routes: [(method: String, pattern: String)]

    /// Opens the data directory and database (applying migrations) and builds the API. Nothing listens yet.
    public init(configuration: HeraldConfiguration, logger: Logger, clock: WallClock = .system) throws {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        let directory = try DataDirectory(path: configuration.dataDirectory)
        sealer = try SecretSealer(key: try directory.secretKey(configured: configuration.secretKey))
        (adminToken, adminTokenGenerated) = try directory.adminToken(configured: configuration.adminToken)
        store = try Self.openStore(configuration.databaseURL, clock: clock, logger: logger)

        let deliveryLogger = logger.labeled("herald.delivery")
        if configuration.delivery.enabled {
            let options = configuration.delivery
            var clientConfiguration = HTTP2Client.Configuration()
            clientConfiguration.extraCAFile = configuration.caFile
            clientConfiguration.maxConnectionsPerHost = options.connectionsPerHost
            clientConfiguration.eventLoops = min(2, ProcessInfo.processInfo.activeProcessorCount)
            let loader = CredentialLoader(store: store, sealer: sealer)
            var apnsConfiguration = APNsProvider.Configuration(baseURLOverride: configuration.apnsURL)
            apnsConfiguration.requestTimeout = options.requestTimeout
            var fcmConfiguration = FCMProvider.Configuration(baseURLOverride: configuration.fcmURL)
            fcmConfiguration.requestTimeout = options.requestTimeout
            providers = [
                APNsProvider(
                    makeClient: { [clientConfiguration] in try HTTP2Client(configuration: clientConfiguration) },
                    credential: loader.apns, clock: clock,
                    configuration: apnsConfiguration, logger: deliveryLogger.labeled("herald.apns")),
                FCMProvider(
                    client: try HTTP2Client(configuration: clientConfiguration), credential: loader.fcm, clock: clock,
                    configuration: fcmConfiguration, logger: deliveryLogger.labeled("herald.fcm")),
            ]
            var engineConfiguration = DeliveryEngine.Configuration(owner: try directory.nodeID())
            engineConfiguration.concurrency = options.concurrency
            engineConfiguration.minimumConcurrency = options.minimumConcurrency
            engineConfiguration.lease = options.lease
            engineConfiguration.retry = RetryPolicy(
                maxAttempts: options.maxAttempts, base: options.retryBase, cap: options.retryCap)
            delivery = DeliveryEngine(
                store: store, providers: providers, clock: clock, configuration: engineConfiguration,
                logger: deliveryLogger,
                metrics: metrics)
        } else {
            providers = []
            delivery = nil
        }
        let engine = delivery
        let notifications = NotificationService(store: store, clock: clock, wake: { engine?.wake() })
        scheduler = ReminderScheduler(
            store: store, notifications: notifications, clock: clock, interval: configuration.schedulerInterval,
            logger: logger.labeled("herald.scheduler"))
        let mobileAuth = MobileAuthenticator(store: store, sealer: sealer, clock: clock)
        var router = Router()
        SystemController(metrics: metrics).register(in: &router)
        let boundPort = BoundPort(configuration.port)
        self.boundPort = boundPort
        let media = try MediaController(
            configuration: configuration, directory: directory, store: store, adminToken: adminToken,
            boundPort: { boundPort.port.load(ordering: .relaxed) })
        let admin = AdminController(
            store: store, auth: AdminAuthenticator(token: adminToken), sealer: sealer, notifications: notifications,
            clock: clock, hostedMedia: media.hosted,
            credentialChanged: { business, platform in
                engine?.credentialChanged(businessID: business, platform: platform)
            })
        admin.register(in: &router)
        AdminLoyaltyController(store: store, admin: admin, notifications: notifications, clock: clock).register(
            in: &router)
        POSController(store: store, auth: POSAuthenticator(store: store), notifications: notifications, clock: clock)
            .register(in: &router)
        let surveyLinks = SurveyLinks(baseURL: media.publicBaseURL)
        MobileLoyaltyController(store: store, auth: mobileAuth, clock: clock, surveyLinks: surveyLinks).register(
            in: &router)
        SurveyPageController(store: store, sealer: sealer, submission: SurveySubmission(store: store, clock: clock))
            .register(in: &router)
        let passwords = PasswordHasher(parameters: .init(n: configuration.passwordCost, r: 8, p: 1))
        MobileController(
            store: store, auth: mobileAuth, notifications: notifications, passwords: passwords, clock: clock,
            tokenLifetime: configuration.accessTokenLifetime,
            dummyHash: try passwords.hash(Base64URL.encode(SecureRandom.bytes(count: 24)))
        ).register(in: &router)
        media.register(in: &router)

        routes = router.routes.map { ($0.method.rawValue, $0.pattern) }
        let httpLogger = logger.labeled("herald.http")
        let application = Application(
            router: router,
            middleware: [
                ObservabilityMiddleware(logger: httpLogger, metrics: metrics), ErrorMiddleware(logger: httpLogger),
            ])
        var serverConfiguration = HTTPServer.Configuration(host: configuration.host, port: configuration.port)
        if let threads = configuration.httpThreads { serverConfiguration.threadCount = threads }
        serverConfiguration.bodyLimit = MediaController.bodyLimit(adminToken: adminToken)
        server = HTTPServer(configuration: serverConfiguration, responder: application, logger: httpLogger)
    }

    /// Opens `url` (`sqlite:<path>`) and brings its schema up to date.
    static func openStore(_ url: String, clock: WallClock, logger: Logger) throws -> any Store {
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            let database = try SQLiteDatabase(path: path)
            let applied = try Migrator.migrate(database, Schema.migrations, at: clock.now().milliseconds)
            if !applied.isEmpty {
                logger.info("database migrated", ["db.versions": applied.map(String.init).joined(separator: ",")])
            }
            return SQLStore(database: database)
        }
        throw HeraldConfiguration.ConfigurationError(
            description: "PostgreSQL is not built into this version yet; use sqlite:<path>")
    }

    /// The port the API listens on (after `start`).
    public var port: Int { server.port }

    /// Starts listening and working.
    public func start() throws {
        try delivery?.start()
        scheduler.start()
        try server.start()
        boundPort.port.store(server.port, ordering: .relaxed)
    }

    /// Stops accepting requests, finishes in-flight work and hands unfinished claims back.
    public func shutdown() {
        server.shutdown(gracePeriod: .seconds(10))
        scheduler.stop()
        delivery?.shutdown(gracePeriod: .seconds(10))
        for provider in providers { provider.shutdown() }
    }
}

/// The port the server listens on: the configured one until it starts (`--port 0` picks one then).
private final class BoundPort: Sendable {
    let port: Atomic<Int>
    init(_ port: Int) { self.port = Atomic(port) }
}
