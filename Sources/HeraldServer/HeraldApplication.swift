import Foundation
import HeraldQueue
import Synchronization
import HeraldCrypto
import HeraldDelivery
import HeraldDomain
import HeraldHTTP
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldStore

/// The whole platform as a library: the API's routes over the domain services, the delivery engine and the
/// reminder scheduler, ready to run as services. What it runs on — the store's database, the push providers —
/// is chosen by its caller (`herald`'s composition root, or a test), not here.
///
/// ```swift
/// let app = try HeraldApplication(
///     configuration: configuration, directory: directory, sealer: sealer, store: store, providers: providers,
///     logger: logger)
/// try app.server.start()   // binds the port
/// try await ServiceGroup(app.services, logger: logger, signals: [SIGTERM, SIGINT]).run()
/// ```
public final class HeraldApplication: Sendable {
    /// The configuration it runs with.
    public let configuration: HeraldConfiguration
    /// The admin API's token.
    public let adminToken: String
    /// True when the admin token was generated at this start (print it once).
    public let adminTokenGenerated: Bool
    /// The store everything is kept in.
    public let store: Store
    /// Metrics shown at `/metrics`.
    public let metrics = MetricsRegistry()
    /// The HTTP API.
    public let server: HTTPServer
    /// The delivery workers (nil when delivery is off).
    public let delivery: DeliveryEngine?
    /// Offer-expiry reminders.
    public let scheduler: ReminderScheduler
    /// Sends launched campaigns to their audiences.
    public let campaignRunner: CampaignRunner
    /// Every route served, as (method, pattern): the OpenAPI document is checked against it.
    public let routes: [(method: String, pattern: String)]
    /// The routes run on the HTTP server's worker threads (`Router.add(…, offloaded: true)`), as (method, pattern).
    public let offloadedRoutes: [(method: String, pattern: String)]
    /// The routes behind their middleware, as the server calls them: `herald admin` sends its requests here
    /// in-process, so a command and the API share every rule and error.
    public let responder: any HTTPResponder
    /// The port the server listens on, once it does (the configured one until then).
    private let boundPort: BoundPort

    /// Builds the API over `store` (already migrated) and, unless delivery is off, the delivery engine over
    /// `providers`. Nothing listens yet.
    public init(
        configuration: HeraldConfiguration, directory: DataDirectory, sealer: SecretSealer, store: Store,
        providers: [any PushProvider], logger: Logger, clock: WallClock = .system
    ) throws {
        self.configuration = configuration
        self.store = store
        (adminToken, adminTokenGenerated) = try directory.adminToken(configured: configuration.adminToken)

        if configuration.delivery.enabled {
            let options = configuration.delivery
            var engineConfiguration = DeliveryEngine.Configuration(owner: try directory.nodeID())
            engineConfiguration.concurrency = options.concurrency
            engineConfiguration.minimumConcurrency = options.minimumConcurrency
            engineConfiguration.lease = options.lease
            engineConfiguration.retry = RetryPolicy(
                maxAttempts: options.maxAttempts, base: options.retryBase, cap: options.retryCap)
            delivery = DeliveryEngine(
                queue: store.deliveryQueue, providers: providers, clock: clock, configuration: engineConfiguration,
                logger: logger.labeled("herald.delivery"), metrics: metrics)
        } else {
            delivery = nil
        }
        let engine = delivery
        let notifications = NotificationService()
        let loyalty = LoyaltyService(store: store, notifications: notifications, clock: clock)
        var accounts = AccountService(store: store, notifications: notifications, loyalty: loyalty, clock: clock)
        accounts.maxDevicesPerUser = configuration.maxDevicesPerUser
        let limits = RateLimits(
            authPerAddress: .perMinute(configuration.authPerAddressPerMinute),
            authPerAccount: .perMinute(configuration.authPerAccountPerMinute),
            mobilePerBusiness: .perSecond(configuration.mobilePerBusinessPerSecond),
            devicePerInstall: .perMinute(configuration.devicePerInstallPerMinute),
            posPerKey: .perSecond(configuration.posPerKeyPerSecond))
        let inbox = InboxService(store: store, clock: clock)
        scheduler = ReminderScheduler(
            store: store, loyalty: loyalty, clock: clock, interval: configuration.schedulerInterval,
            logger: logger.labeled("herald.scheduler"))

        let campaigns = CampaignService(store: store, clock: clock)
        let geofences = GeofenceService(store: store, notifications: notifications, clock: clock)
        let campaignRunner = CampaignRunner(
            fanOut: CampaignFanOut(store: store, notifications: notifications, clock: clock), clock: clock,
            logger: logger.labeled("herald.campaigns"))
        self.campaignRunner = campaignRunner
        let mobileAuth = MobileAuthenticator(store: store, sealer: sealer, clock: clock, limits: limits)
        var router = Router()
        let openAPI = configuration.openAPIFile.flatMap { FileManager.default.contents(atPath: $0) }.map(Array.init)
        SystemController(metrics: metrics, openAPI: openAPI).register(in: &router)
        let boundPort = BoundPort(configuration.port)
        self.boundPort = boundPort
        let businesses = BusinessService(store: store, clock: clock)
        let media = try MediaController(
            configuration: configuration, directory: directory, businesses: businesses, adminToken: adminToken,
            boundPort: { boundPort.port.load(ordering: .relaxed) })
        let admin = AdminAccess(
            auth: AdminAuthenticator(token: adminToken), businesses: businesses, hostedMedia: media.hosted)
        let directory = DirectoryService(store: store)
        let devices = DeviceService(store: store, clock: clock)
        var eventOptions = DeviceEventService.Options()
        eventOptions.influenceWindow = configuration.influenceWindow
        let deviceEvents = DeviceEventService(store: store, clock: clock, options: eventOptions)
        AdminBusinessController(
            admin: admin, businesses: businesses, clock: clock, sealer: sealer,
            credentialChanged: { business, platform in
                engine?.credentialChanged(businessID: business, platform: platform)
            }
        ).register(in: &router)
        AdminTemplateController(
            admin: admin, templates: TemplateService(store: store, notifications: notifications, clock: clock)
        ).register(in: &router)
        AdminMessagingController(
            admin: admin, news: NewsService(store: store, notifications: notifications, clock: clock),
            directory: directory
        ).register(in: &router)
        AdminDirectoryController(admin: admin, directory: directory, devices: devices).register(in: &router)
        AdminLoyaltyController(admin: admin, loyalty: loyalty).register(in: &router)
        AdminCampaignController(
            admin: admin, campaigns: campaigns, geofences: geofences, events: deviceEvents,
            launched: { campaignRunner.wake() }
        ).register(in: &router)
        AudienceController(
            admin: admin, importer: UserImporter(store: store, clock: clock),
            segments: SegmentService(store: store, clock: clock)
        ).register(in: &router)
        POSController(auth: POSAuthenticator(store: store, limits: limits), accounts: accounts, loyalty: loyalty)
            .register(in: &router)
        let surveyLinks = SurveyLinks(baseURL: media.publicBaseURL, sealer: sealer)
        MobileLoyaltyController(auth: mobileAuth, loyalty: loyalty, surveyLinks: surveyLinks).register(in: &router)
        SurveyPageController(loyalty: loyalty, sealer: sealer).register(in: &router)
        let passwordThreads =
            configuration.passwordThreads ?? max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        let passwords = PasswordHasher(parameters: .init(n: configuration.passwordCost, r: 8, p: 1))
        MobileController(
            auth: mobileAuth, accounts: accounts, inbox: inbox, passwords: passwords, clock: clock,
            tokenLifetime: configuration.accessTokenLifetime,
            dummyHash: try passwords.hash(Base64URL.encode(SecureRandom.bytes(count: 24))), limits: limits,
            passwordPool: PasswordPool(slots: passwordThreads)
        ).register(in: &router)
        let deviceAuth = DeviceAuthenticator(
            store: store, sealer: sealer, clock: clock, devices: devices, limits: limits)
        DeviceController(auth: deviceAuth, sealer: sealer, devices: devices, events: deviceEvents).register(in: &router)
        DeviceGeofenceController(auth: deviceAuth, geofences: geofences, clock: clock, events: deviceEvents)
            .register(in: &router)
        media.register(in: &router)
        ConsoleController().register(in: &router)

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
        serverConfiguration.reservedConnections = configuration.reservedConnections
        server = HTTPServer(configuration: serverConfiguration, responder: application, logger: httpLogger)
    }

    /// Binds the API's port (a taken one fails here, before anything runs). `run` binds it if this was not called.
    public func bind() throws {
        try server.start()
        boundPort.port.store(server.port, ordering: .relaxed)
    }

    /// The port the API listens on (after `bind`).
    public var port: Int { server.port }

    /// The services to run, in start order (stopped in reverse: the API first, the delivery engine last).
    public var services: [(name: String, service: any Service)] {
        var services: [(name: String, service: any Service)] = []
        if let delivery { services.append(("delivery", delivery)) }
        services.append(("scheduler", scheduler))
        services.append(("campaigns", campaignRunner))
        services.append(("http", server))
        return services
    }
}

/// The port the server listens on: the configured one until it starts (`--port 0` picks one then).
private final class BoundPort: Sendable {
    let port: Atomic<Int>
    init(_ port: Int) { self.port = Atomic(port) }
}
