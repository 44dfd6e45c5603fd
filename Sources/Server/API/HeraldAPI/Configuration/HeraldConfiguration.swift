import HeraldHTTPServer
import HeraldObservability

/// Everything `herald serve` is configured with. Every value has a default; see `+Environment` for the
/// flags and environment variables that set them.
public struct HeraldConfiguration: Sendable {
    /// Address the HTTP API binds.
    package var host: String = "127.0.0.1"
    /// Port the HTTP API binds (0: any free port).
    package var port: Int = 8080
    /// Where Herald keeps its database, keys and media.
    package var dataDirectory: String = "./herald-data"
    /// `sqlite:<path>` or `postgres://…`; nil means `sqlite:<data-dir>/herald.db`.
    package var database: String?
    /// Bearer token of the admin API; nil means generate one (once) and keep it in the data dir.
    package var adminToken: String?
    /// 32-byte key sealing secrets at rest (hex or base64); nil means a key file in the data dir.
    package var secretKey: String?
    /// Base URL replacing Apple's production host, and its sandbox host too unless `apnsSandboxURL` is set.
    package var apnsURL: String?
    /// Base URL replacing Apple's sandbox host.
    package var apnsSandboxURL: String?
    /// Base URL replacing `https://fcm.googleapis.com`.
    package var fcmURL: String?
    /// PEM bundle trusted for outgoing TLS besides the system store.
    package var caFile: String?
    /// Public base URL of this server, used in links Herald hands out (media, surveys). Nil: `http://host:port`.
    package var publicURL: String?
    /// Least important log level written.
    package var logLevel: Logger.Level = .info
    /// How log lines are written: logfmt or JSON.
    package var logFormat: Logger.Format = .logfmt
    /// Bind with SO_REUSEPORT, sharing the port with other processes that do the same.
    package var reusePort = false
    /// A socket already bound and listening (by `herald serve`, before anything else starts) for the API to
    /// serve on instead of binding `host`:`port` itself.
    package var listeningSocket: Int32?
    /// HTTP server threads.
    package var httpThreads: Int?
    /// Delivery tuning.
    package var delivery = DeliveryOptions()
    /// Password hashing cost (scrypt N); lower only for tests.
    package var passwordCost: UInt64 = 16_384
    /// How often the scheduler looks for offers to remind users of.
    package var schedulerInterval: Duration = .seconds(60)
    /// How long an access token lives.
    package var accessTokenLifetime: Duration = .seconds(30 * 24 * 3600)
    /// How long after a campaign push is delivered an app open counts as an influenced open of it.
    package var influenceWindow: Duration = .seconds(24 * 3600)
    /// How long a connection may take over its whole request head.
    package var headTimeout: Duration = .seconds(10)
    /// Most connections from one client address (a trusted proxy's are not counted).
    package var connectionsPerAddress = 256
    /// The proxies (in front of Herald) whose `Forwarded` / `X-Forwarded-For` say the client's address; none by
    /// default: the client is the peer.
    package var trustedProxies: TrustedProxies = .none
    /// Connections kept beyond the 10,000 for `/healthz` and `/metrics` only.
    package var reservedConnections = 64
    /// Where mail goes (the one-time codes of imported customers' sign-ups); nil: the log (`LogMailer`).
    package var mailer: (any Mailer)?
    /// Most devices per user (the least recently updated are deleted beyond).
    package var maxDevicesPerUser = 10
    /// Sign-ups, logins and password checks a minute from one client address (0: no limit).
    package var authPerAddressPerMinute = 60
    /// Failed password checks on one account from one address before each further attempt from there waits (5 s
    /// after the last failure, doubling, at most 15 minutes; a success clears them). 0: no delay.
    package var authFailuresPerAccount = 10
    /// Settings given under a name that is no longer Herald's (an old flag or variable still accepted), and what
    /// became of each: `herald serve` logs one warning for each at start.
    package var deprecatedSettings: [DeprecatedSetting] = []
    /// Mobile API calls a second per business made before signing in (sign-up, login), once their digest holds, each
    /// client address held to a fair share (`FairShareLimiter`; 0: no limit).
    package var mobilePerBusinessPerSecond = 2000
    /// Signed-in mobile API calls a second per user, once digest and session hold (0: no limit).
    package var mobilePerUserPerSecond = 50
    /// Device API calls a minute per install (0: no limit).
    package var devicePerInstallPerMinute = 300
    /// Install registrations a minute from one client address (0: no limit).
    package var installsPerAddressPerMinute = 30
    /// POS calls a second per POS key (0: no limit).
    package var posPerKeyPerSecond = 200
    /// Threads running the routes that hash passwords (the HTTP server's workers; see `PasswordPool`); nil: one
    /// fewer than the cores, at least one.
    package var passwordThreads: Int?

    /// Delivery engine settings.
    package struct DeliveryOptions: Sendable {
        /// Run the delivery workers in this process.
        package var enabled = true
        /// Most sends in flight at once (a memory bound; each credential's connections carry as many as their
        /// streams allow, the rest wait for a free stream).
        package var concurrency = 4096
        /// nil: `concurrency` in flight. A number: an adaptive window between it and `concurrency` that narrows
        /// as round trips grow (fewer pushes sent twice after a crash; slower when some answers are slow).
        package var minimumConcurrency: Int?
        /// Most FCM sends a minute per credential, this node's pace under Google's per-project quota.
        package var fcmQuotaPerMinute = 600_000
        /// How long a claim is held before another worker may take the job over.
        package var lease: Duration = .seconds(60)
        /// Attempts before a retryable failure becomes final.
        package var maxAttempts = 8
        /// First retry delay; doubled per attempt, with jitter.
        package var retryBase: Duration = .seconds(2)
        /// Longest retry delay.
        package var retryCap: Duration = .seconds(600)
        /// How long each HTTP/2 request to Apple or Google may take.
        package var requestTimeout: Duration = .seconds(30)
        /// HTTP/2 connections per credential (each business's APNs key has a client of its own; FCM's one client
        /// carries every project), opened as the streams of those open fill up: the budget of every node on the
        /// database together, leased through it (`ConnectionBudget`).
        package var connectionsPerHost = 4
        /// Most streams used at once per connection; the provider's SETTINGS_MAX_CONCURRENT_STREAMS may allow fewer
        /// (APNs: one until a token is accepted, then up to ~1,000), and the client follows what it announces.
        package var streamsPerConnection = 1000

        /// Defaults.
        package init() {}
    }

    /// The defaults.
    package init() {}

    /// The database URL, with the default filled in.
    package var databaseURL: String { database ?? "sqlite:\(dataDirectory)/herald.db" }
}
