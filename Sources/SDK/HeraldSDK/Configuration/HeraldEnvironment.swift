import HeraldModel

/// The SDK's ports, each replaceable: tests pass fakes; on iOS, `Herald.start(apiKey:baseURL:)` uses
/// `HeraldEnvironment.live()` (URLSession, the Keychain and files, UserNotifications, CoreLocation, UIKit).
///
/// ```swift
/// let environment = HeraldEnvironment(transport: URLSessionTransport(), storage: MemoryStorage(), urlOpener: opener)
/// let client = HeraldClient(configuration: configuration, environment: environment)
/// ```
public struct HeraldEnvironment: Sendable {
    /// HTTP.
    public var transport: any HTTPTransport
    /// Where state is kept.
    public var storage: any PersistentStorage
    /// Where the install's record and credential are kept, when not in `storage` (the Keychain on iOS); moved there
    /// from `storage` the first time it is read.
    public var secureStorage: (any PersistentStorage)?
    /// The time.
    public var clock: WallClock
    /// Later work (retries, refreshes).
    public var scheduler: any WorkScheduler
    /// Ids and jitter.
    public var random: RandomSource
    /// The notification screen and system notifications.
    public var presenter: any NotificationPresenter
    /// The system's region monitoring, if the app uses geofences.
    public var regionMonitor: (any RegionMonitor)?
    /// The system's location service (permission, significant changes), if the app uses geofences.
    public var location: (any LocationService)?
    /// The system's notification permission, read and asked for.
    public var notificationAuthorizer: (any NotificationAuthorizer)?
    /// The app icon's badge.
    public var badge: (any AppBadge)?
    /// Opens calls to action.
    public var urlOpener: any URLOpener
    /// Receives what the developer should know (dropped events, refused links); nothing by default.
    public var diagnostics: @Sendable (HeraldDiagnostic) -> Void

    /// An environment.
    public init(
        transport: any HTTPTransport, storage: any PersistentStorage, secureStorage: (any PersistentStorage)? = nil,
        clock: WallClock = .system, scheduler: any WorkScheduler = TaskScheduler(), random: RandomSource = .system,
        presenter: any NotificationPresenter = SilentPresenter(), regionMonitor: (any RegionMonitor)? = nil,
        location: (any LocationService)? = nil, notificationAuthorizer: (any NotificationAuthorizer)? = nil,
        badge: (any AppBadge)? = nil, urlOpener: any URLOpener,
        diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void = { _ in }
    ) {
        self.transport = transport
        self.storage = storage
        self.secureStorage = secureStorage
        self.clock = clock
        self.scheduler = scheduler
        self.random = random
        self.presenter = presenter
        self.regionMonitor = regionMonitor
        self.location = location
        self.notificationAuthorizer = notificationAuthorizer
        self.badge = badge
        self.urlOpener = urlOpener
        self.diagnostics = diagnostics
    }
}
