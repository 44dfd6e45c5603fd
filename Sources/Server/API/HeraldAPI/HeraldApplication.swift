import Foundation
import Synchronization
import HeraldCrypto
import HeraldDelivery
import HeraldDomain
import HeraldHTTPServer
import HeraldLifecycle
import HeraldModel
import HeraldObservability

/// The HTTP layer of the platform: the API's routes over the domain services it is given, and the workers to run
/// (the delivery engine, the scheduler, the campaign runner, the API). What it runs on — the domain services (over the
/// store, which this layer never touches), the delivery engine and its providers — is built by its caller (`HeraldServer`'s `Composition`, the
/// one composition root, which `herald` and the tests' in-process Herald both use), not here.
///
/// ```swift
/// let app = try HeraldApplication(
///     configuration: configuration, directory: directory, sealer: sealer, domain: domain,
///     changeFeed: store.changeFeed as? any Worker, delivery: engine, metrics: metrics, logger: logger)
/// try app.bind()   // binds the port
/// try await WorkerGroup(app.workers, logger: logger, signals: [SIGTERM, SIGINT]).run()
/// ```
public final class HeraldApplication: Sendable {
    /// The configuration it runs with.
    package let configuration: HeraldConfiguration
    /// The admin API's token.
    package let adminToken: String
    /// True when the admin token was generated at this start (print it once).
    package let adminTokenGenerated: Bool
    /// The store's change feed when it is a worker of its own (PostgreSQL's listener): run first, stopped last.
    package let changeFeed: (any Worker)?
    /// Metrics shown at `/metrics`.
    package let metrics: MetricsRegistry
    /// The HTTP API.
    package let server: HTTPServer
    /// The delivery workers (nil when delivery is off).
    package let delivery: DeliveryEngine?
    /// What leases the delivery engine's connections from the fleet's budget, renewing them while it runs.
    package let connectionBudget: (any Worker)?
    /// The domain services the routes call.
    package let domain: DomainServices
    /// Every route served, as (method, pattern): the OpenAPI document is checked against it.
    package let routes: [(method: String, pattern: String)]
    /// The routes run on the HTTP server's worker threads (`Router.add(…, offloaded: true)`), as (method, pattern).
    package let offloadedRoutes: [(method: String, pattern: String)]
    /// The routes behind their middleware, as the server calls them: `herald admin` sends its requests here
    /// in-process, so a command and the API share every rule and error.
    package let responder: any HTTPResponder
    /// The port the server listens on, once it does (the configured one until then).
    private let boundPort: BoundPort

    /// Builds the API over `domain` (its store already migrated), with `delivery` told when a credential changes
    /// (and `connectionBudget`, its providers' connection leases, run from before it starts until after it stops).
    /// `sealer` keys the server's own codes (emailed sign-in codes, survey links). Nothing listens yet.
    package init(
        configuration: HeraldConfiguration, directory: DataDirectory, sealer: SecretSealer, domain: DomainServices,
        changeFeed: (any Worker)? = nil, delivery: DeliveryEngine?, connectionBudget: (any Worker)? = nil,
        metrics: MetricsRegistry, logger: Logger, clock: WallClock = .system
    ) throws {
        self.connectionBudget = connectionBudget
        self.configuration = configuration
        self.changeFeed = changeFeed
        self.domain = domain
        self.delivery = delivery
        self.metrics = metrics
        (adminToken, adminTokenGenerated) = try directory.adminToken(configured: configuration.adminToken)
        let engine = delivery
        let (loyalty, accounts, inbox) = (domain.loyalty, domain.accounts, domain.inbox)
        let (campaigns, geofences, devices, deviceEvents) = (
            domain.campaigns, domain.geofences, domain.devices, domain.deviceEvents
        )
        let campaignRunner = domain.campaignRunner
        let limits = RateLimits(
            authPerAddress: .perMinute(configuration.authPerAddressPerMinute),
            authFailuresPerAccount: configuration.authFailuresPerAccount,
            mobilePerBusiness: .perSecond(configuration.mobilePerBusinessPerSecond),
            mobilePerUser: .perSecond(configuration.mobilePerUserPerSecond),
            devicePerInstall: .perMinute(configuration.devicePerInstallPerMinute),
            installsPerAddress: .perMinute(configuration.installsPerAddressPerMinute),
            posPerKey: .perSecond(configuration.posPerKeyPerSecond))
        let mobileAuth = MobileAuthenticator(access: domain.access, clock: clock, limits: limits)
        var router = Router()
        SystemController(metrics: metrics).register(in: &router)
        let boundPort = BoundPort(configuration.port)
        self.boundPort = boundPort
        let businesses = domain.businesses
        let media = try MediaController(
            configuration: configuration, directory: directory, businesses: businesses, adminToken: adminToken,
            boundPort: { boundPort.port.load(ordering: .relaxed) })
        let admin = AdminAccess(
            auth: AdminAuthenticator(token: adminToken), businesses: businesses, hostedMedia: media.hosted)
        AdminBusinessController(
            admin: admin, businesses: businesses,
            credentialChanged: { business, platform in
                engine?.credentialChanged(businessID: business, platform: platform)
            }
        ).register(in: &router)
        AdminTemplateController(admin: admin, templates: domain.templates).register(in: &router)
        AdminMessagingController(admin: admin, news: domain.news, directory: domain.directory).register(in: &router)
        AdminDirectoryController(admin: admin, directory: domain.directory, devices: devices).register(in: &router)
        AdminLoyaltyController(admin: admin, loyalty: loyalty).register(in: &router)
        AdminCampaignController(
            admin: admin, campaigns: campaigns, geofences: geofences, events: deviceEvents,
            launched: { campaignRunner.wake() }
        ).register(in: &router)
        AudienceController(admin: admin, importer: domain.importer, segments: domain.segments).register(in: &router)
        POSController(
            auth: POSAuthenticator(access: domain.access, limits: limits), accounts: accounts, loyalty: loyalty
        )
        .register(in: &router)
        let surveyLinks = SurveyLinks(baseURL: media.publicBaseURL, sealer: sealer)
        MobileLoyaltyController(auth: mobileAuth, loyalty: loyalty, surveyLinks: surveyLinks).register(in: &router)
        MobileBeaconController(auth: mobileAuth, geofences: geofences).register(in: &router)
        SurveyPageController(loyalty: loyalty, sealer: sealer).register(in: &router)
        let passwordThreads =
            configuration.passwordThreads ?? max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        let passwords = PasswordHasher(parameters: .init(n: configuration.passwordCost, r: 8, p: 1))
        MobileController(
            auth: mobileAuth, accounts: accounts, inbox: inbox, passwords: passwords, clock: clock,
            tokenLifetime: configuration.accessTokenLifetime,
            dummyHash: try passwords.hash(Base64URL.encode(SecureRandom.bytes(count: 24))), limits: limits,
            passwordPool: PasswordPool(slots: passwordThreads), emailProof: EmailProof(sealer: sealer),
            mailer: configuration.mailer ?? LogMailer(logger: logger)
        ).register(in: &router)
        let deviceAuth = DeviceAuthenticator(access: domain.access, clock: clock, devices: devices, limits: limits)
        let identityVerifier = IdentityVerifier(keys: domain.identityKeys)
        DeviceController(
            auth: deviceAuth, access: domain.access, devices: devices, events: deviceEvents, verifier: identityVerifier
        ).register(in: &router)
        DeviceGeofenceController(auth: deviceAuth, geofences: geofences, clock: clock, events: deviceEvents)
            .register(in: &router)
        DeviceIdentityController(
            admin: admin, auth: deviceAuth, identities: domain.identities, verifier: identityVerifier
        ).register(in: &router)
        AdminIdentityKeyController(admin: admin, verifier: identityVerifier).register(in: &router)
        media.register(in: &router)
        ConsoleController().register(in: &router)
        SurveyCheckController(admin: admin).register(in: &router)

        routes = router.routes.map { ($0.method.rawValue, $0.pattern) }
        offloadedRoutes = router.routes.filter { router.isOffloaded($0.method, $0.pattern) }.map {
            ($0.method.rawValue, $0.pattern)
        }
        let httpLogger = logger.labeled("herald.http")
        let application = Application(
            router: router,
            middleware: [
                ObservabilityMiddleware(logger: httpLogger, metrics: metrics), ErrorMiddleware(logger: httpLogger),
            ])
        responder = application
        var serverConfiguration = HTTPServer.Configuration(host: configuration.host, port: configuration.port)
        if let threads = configuration.httpThreads { serverConfiguration.threadCount = threads }
        // The routes that hash passwords are offloaded (MobileController): the workers are the password threads.
        serverConfiguration.workerThreadCount = passwordThreads
        serverConfiguration.reusePort = configuration.reusePort
        serverConfiguration.listeningSocket = configuration.listeningSocket
        serverConfiguration.bodyLimit = MediaController.bodyLimit(adminToken: adminToken)
        serverConfiguration.headTimeout = configuration.headTimeout
        serverConfiguration.perAddressConnectionLimit = configuration.connectionsPerAddress
        serverConfiguration.trustedProxies = configuration.trustedProxies
        serverConfiguration.reservedConnections = configuration.reservedConnections
        server = HTTPServer(configuration: serverConfiguration, responder: application, logger: httpLogger)
    }

    /// Binds the API's port (a taken one fails here, before anything runs). `run` binds it if this was not called.
    package func bind() throws {
        try server.start()
        boundPort.port.store(server.port, ordering: .relaxed)
    }

    /// The port the API listens on (after `bind`).
    package var port: Int { server.port }

    /// The scheme, host and port phones reach Herald at, which media and survey links start with: `--public-url`,
    /// else this server's own address (after `bind`).
    package var publicBaseURL: String { MediaController.publicBaseURL(configuration, port: port) }

    /// The workers to run, in start order (stopped in reverse: the API first, the delivery engine and then the
    /// store's change feed last).
    package var workers: [(name: String, worker: any Worker)] {
        var workers: [(name: String, worker: any Worker)] = []
        // A feed with a listener of its own (PostgreSQL's) first: every other worker hears other nodes through it.
        if let changeFeed { workers.append(("changes", changeFeed)) }
        if let connectionBudget { workers.append(("connections", connectionBudget)) }
        if let delivery { workers.append(("delivery", delivery)) }
        workers.append(("scheduler", domain.scheduler))
        workers.append(("campaigns", domain.campaignRunner))
        workers.append(("http", server))
        return workers
    }
}

/// The port the server listens on: the configured one until it starts (`--port 0` picks one then).
private final class BoundPort: Sendable {
    let port: Atomic<Int>
    init(_ port: Int) { self.port = Atomic(port) }
}
