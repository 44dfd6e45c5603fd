import HeraldDeliveryPorts
import Foundation
import HeraldAPNs
import HeraldCrypto
import HeraldDomain
import HeraldDelivery
import HeraldFCM
import HeraldHTTPClient
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldPostgres
import HeraldSQLite
import HeraldAPI
import HeraldStore

/// The one place Herald's concrete parts are chosen: the database a URL names, the push providers, and the
/// application over them. `herald serve` and the tests' in-process Herald both build it here.
public enum Composition {
    /// Opens the database `url` names (`sqlite:<path>`, or `postgres://…` shared by several nodes) and brings its
    /// schema up to date (on PostgreSQL under an advisory lock, so nodes starting at once migrate it once).
    package static func openStore(_ url: String, clock: WallClock, logger: Logger) throws -> Store {
        let database: any SQLDatabase
        var feed: PostgresChangeFeed?
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw HeraldConfiguration.ConfigurationError(description: "database sqlite: names no file")
            }
            do {
                database = try SQLiteDatabase(path: path)
            } catch {
                let directory = (path as NSString).deletingLastPathComponent
                let hint =
                    !directory.isEmpty && !FileManager.default.fileExists(atPath: directory)
                    ? " (directory \(directory) does not exist)" : ""
                throw HeraldConfiguration.ConfigurationError(
                    description: "cannot open database \(url)\(hint): \(error)")
            }
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            do {
                database = try PostgresDatabase(url: url)
                // Every node hears every commit: new jobs wake its engine, other changes empty its caches. The feed's
                // listener runs as the first of the application's workers (`HeraldApplication.workers`).
                feed = try PostgresChangeFeed(url: url)
            } catch {
                // The URL may hold a password: name only its scheme.
                throw HeraldConfiguration.ConfigurationError(description: "cannot open database postgres://…: \(error)")
            }
        } else {
            throw HeraldConfiguration.ConfigurationError(
                description: "--database must be sqlite:<path> or postgres://…, not \(url.prefix(while: { $0 != ":" }))"
            )
        }
        let applied: [Int]
        do {
            applied = try Migrator.migrate(database, Schema.migrations, at: clock.now().milliseconds)
        } catch {
            let shown = url.hasPrefix("sqlite:") ? url : "postgres://…"
            throw HeraldConfiguration.ConfigurationError(description: "cannot migrate database \(shown): \(error)")
        }
        if !applied.isEmpty {
            logger.info("database migrated", ["db.versions": applied.map(String.init).joined(separator: ",")])
        }
        return try Store(database: database, feed: feed)
    }

    /// Apple's and Google's providers, as configured, loading credentials with `credentials`, keeping their
    /// provider tokens in `tokens` (the database's, shared by the nodes, in a server) and, given `connections`,
    /// leasing their connections from the fleet's budget.
    package static func pushProviders(
        _ configuration: HeraldConfiguration, credentials: CredentialLoader, clock: WallClock,
        tokens: any ProviderTokenStore = MemoryProviderTokenStore(), connections: ConnectionBudget? = nil,
        logger: Logger
    ) throws -> [any PushProvider] {
        let options = configuration.delivery
        var clientConfiguration = HTTP2Client.Configuration()
        clientConfiguration.extraCAFile = configuration.caFile
        clientConfiguration.maxConnectionsPerHost = options.connectionsPerHost
        clientConfiguration.maxConcurrentStreamsPerConnection = options.streamsPerConnection
        // A push is sent within the first half of its lease (else handed back) and answered or timed out within the
        // request timeout — time waiting for a free stream included — so that its answer is written before the lease
        // runs out and no other node claims and sends it again while this one still holds it.
        let requestTimeout = min(options.requestTimeout, options.lease * 2 / 5)
        var apnsConfiguration = APNsProvider.Configuration(
            baseURLOverride: configuration.apnsURL, sandboxURLOverride: configuration.apnsSandboxURL)
        apnsConfiguration.requestTimeout = requestTimeout
        var fcmConfiguration = FCMProvider.Configuration(baseURLOverride: configuration.fcmURL)
        fcmConfiguration.requestTimeout = requestTimeout
        return [
            APNsProvider(
                makeClient: { [clientConfiguration] in try HTTP2Client(configuration: clientConfiguration) },
                credential: credentials.apns, clock: clock, configuration: apnsConfiguration, tokens: tokens,
                connections: connections, logger: logger.labeled("herald.apns")),
            FCMProvider(
                client: try HTTP2Client(configuration: clientConfiguration), credential: credentials.fcm, clock: clock,
                configuration: fcmConfiguration, tokens: tokens, connections: connections,
                logger: logger.labeled("herald.fcm")),
        ]
    }

    /// Herald as `configuration` describes it: its data directory, its database, the domain services over it, the
    /// delivery engine over Apple's and Google's providers — or those `providers` makes (a recording provider in
    /// tests) — and the HTTP layer over all of them.
    public static func application(
        _ configuration: HeraldConfiguration, logger: Logger, clock: WallClock = .system,
        providers: ((CredentialLoader) throws -> [any PushProvider])? = nil
    ) throws -> HeraldApplication {
        let directory = try DataDirectory(path: configuration.dataDirectory)
        let sealer = try SecretSealer(key: try directory.secretKey(configured: configuration.secretKey))
        let store = try openStore(configuration.databaseURL, clock: clock, logger: logger)
        let metrics = MetricsRegistry()
        var engine: DeliveryEngine?
        var budget: ConnectionBudget?
        if configuration.delivery.enabled {
            let credentials = CredentialLoader(store: store, sealer: sealer)
            let owner = try directory.nodeID()
            if providers == nil {
                budget = ConnectionBudget(
                    leases: SQLConnectionLeases(database: store.database), owner: owner, clock: clock,
                    configuration: .init(budget: configuration.delivery.connectionsPerHost), metrics: metrics,
                    logger: logger.labeled("herald.delivery"))
            }
            let chosen =
                try providers?(credentials)
                ?? pushProviders(
                    configuration, credentials: credentials, clock: clock,
                    tokens: StoredProviderTokens(store: store, sealer: sealer, owner: owner), connections: budget,
                    logger: logger.labeled("herald.delivery"))
            engine = DeliveryEngine(
                queue: store.deliveryQueue, providers: chosen, clock: clock,
                configuration: try engineConfiguration(configuration.delivery, owner: owner),
                logger: logger.labeled("herald.delivery"), metrics: metrics, quota: StoredQuotaLedger(store: store),
                windows: StoredCredentialWindows(store: store))
        }
        var options = DomainServices.Options()
        options.maxDevicesPerUser = configuration.maxDevicesPerUser
        options.influenceWindow = configuration.influenceWindow
        options.schedulerInterval = configuration.schedulerInterval
        if let engine {
            options.pacing = { engine.pacing(businessID: $0).flatMap { CampaignPace.Cause(rawValue: $0.rawValue) } }
        }
        return try HeraldApplication(
            configuration: configuration, directory: directory, sealer: sealer,
            domain: DomainServices(store: store, sealer: sealer, clock: clock, options: options, logger: logger),
            changeFeed: store.changeFeed as? any Worker, delivery: engine,
            connectionBudget: budget, metrics: metrics, logger: logger, clock: clock)
    }

    /// The delivery engine's settings from the command line's, for the node `owner`.
    static func engineConfiguration(_ options: HeraldConfiguration.DeliveryOptions, owner: String) throws
        -> DeliveryEngine.Configuration
    {
        var configuration = DeliveryEngine.Configuration(owner: owner)
        configuration.concurrency = options.concurrency
        configuration.minimumConcurrency = options.minimumConcurrency
        configuration.fcmQuotaPerMinute = options.fcmQuotaPerMinute
        configuration.lease = options.lease
        configuration.retry = RetryPolicy(
            maxAttempts: options.maxAttempts, base: options.retryBase, cap: options.retryCap)
        return configuration
    }
}
