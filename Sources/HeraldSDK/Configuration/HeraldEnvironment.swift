import HeraldModel

/// The SDK's ports, each replaceable: tests pass fakes, apps take `HeraldEnvironment.live(storage:)`.
public struct HeraldEnvironment: Sendable {
    /// HTTP.
    public var transport: any HTTPTransport
    /// Where state is kept.
    public var storage: any PersistentStorage
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
    /// Opens calls to action.
    public var urlOpener: any URLOpener
    /// Receives what the developer should know (dropped events, refused links); nothing by default.
    public var diagnostics: @Sendable (HeraldDiagnostic) -> Void

    /// An environment.
    public init(
        transport: any HTTPTransport, storage: any PersistentStorage, clock: WallClock = .system,
        scheduler: any WorkScheduler = TaskScheduler(), random: RandomSource = .system,
        presenter: any NotificationPresenter = SilentPresenter(), regionMonitor: (any RegionMonitor)? = nil,
        urlOpener: any URLOpener, diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void = { _ in }
    ) {
        self.transport = transport
        self.storage = storage
        self.clock = clock
        self.scheduler = scheduler
        self.random = random
        self.presenter = presenter
        self.regionMonitor = regionMonitor
        self.urlOpener = urlOpener
        self.diagnostics = diagnostics
    }
}
