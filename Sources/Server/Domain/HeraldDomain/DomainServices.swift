import HeraldModel
import HeraldObservability
import HeraldStore

/// Every domain service of one Herald, over one store, one sealer and one clock: what the composition root
/// (`HeraldServer`) builds once and hands to the HTTP layer (`HeraldApplication`), which routes requests to them and
/// never reaches the store itself. The two long-lived ones — the reminder scheduler and the campaign runner — are
/// services to run.
///
/// ```swift
/// let domain = DomainServices(store: store, sealer: sealer, clock: clock, options: options, logger: logger)
/// let app = try HeraldApplication(…, domain: domain, delivery: engine, metrics: metrics, …)
/// ```
package struct DomainServices: Sendable {
    /// What the domain is tuned with (defaults suit tests).
    package struct Options: Sendable {
        /// Devices one user keeps; registering more drops the least recently updated.
        package var maxDevicesPerUser = 10
        /// How long after a campaign push an app opening counts as influenced by it.
        package var influenceWindow: Duration = .seconds(24 * 3600)
        /// How often the reminder scheduler looks for offers about to expire.
        package var schedulerInterval: Duration = .seconds(60)
        /// What holds back a business's pushes on this node (the delivery engine's per-credential state, handed in
        /// by the composition root; the domain does not know the engine): campaign reports' `pace.paced_by`.
        package var pacing: @Sendable (_ businessID: Int64) -> CampaignPace.Cause? = { _ in nil }

        /// The defaults.
        package init() {}
    }

    /// The store the services are over: the composition root's (its change feed, the delivery engine's ports) and
    /// tests' reads. The HTTP layer calls the services.
    package let store: Store
    /// Who is calling: the lookups the API's authenticators make, secrets opened.
    package let access: AccessService
    /// Businesses' identity keys.
    package let identityKeys: IdentityKeyService
    /// Templates and the one writer of inbox entries and push jobs.
    package let notifications: NotificationService
    /// Check-ins, conversions, offers, redemptions, gift cards, surveys.
    package let loyalty: LoyaltyService
    /// Sign-up, login, profiles, the Punchh API's devices.
    package let accounts: AccountService
    /// Read marks, deletions, the badge.
    package let inbox: InboxService
    /// Businesses, credentials, keys, locations, settings.
    package let businesses: BusinessService
    /// Each event's words.
    package let templates: TemplateService
    /// News, direct pushes, "retry now".
    package let news: NewsService
    /// An operator's lookups.
    package let directory: DirectoryService
    /// Campaigns as drafts, launched, paused, cancelled.
    package let campaigns: CampaignService
    /// Geofences and the visits devices report.
    package let geofences: GeofenceService
    /// SDK installs.
    package let devices: DeviceService
    /// What installs report, and campaign reports.
    package let deviceEvents: DeviceEventService
    /// Which user an install belongs to (identify, logout).
    package let identities: DeviceIdentityService
    /// Segments.
    package let segments: SegmentService
    /// The NDJSON user import.
    package let importer: UserImporter
    /// Offer-expiry reminders (a service to run).
    package let scheduler: ReminderScheduler
    /// Launched campaigns' fan-out (a service to run).
    package let campaignRunner: CampaignRunner

    /// The services over `store`, sealing secrets with `sealer`, on `clock`.
    package init(store: Store, sealer: SecretSealer, clock: WallClock, options: Options = Options(), logger: Logger) {
        self.store = store
        access = AccessService(store: store, sealer: sealer)
        identityKeys = IdentityKeyService(store: store, sealer: sealer, clock: clock)
        let notifications = NotificationService()
        self.notifications = notifications
        loyalty = LoyaltyService(store: store, notifications: notifications, clock: clock)
        var accounts = AccountService(store: store, notifications: notifications, loyalty: loyalty, clock: clock)
        accounts.maxDevicesPerUser = options.maxDevicesPerUser
        self.accounts = accounts
        inbox = InboxService(store: store, clock: clock)
        businesses = BusinessService(store: store, sealer: sealer, clock: clock)
        templates = TemplateService(store: store, notifications: notifications, clock: clock)
        news = NewsService(store: store, notifications: notifications, clock: clock)
        directory = DirectoryService(store: store)
        campaigns = CampaignService(store: store, clock: clock)
        geofences = GeofenceService(store: store, notifications: notifications, clock: clock)
        devices = DeviceService(store: store, clock: clock)
        var eventOptions = DeviceEventService.Options()
        eventOptions.influenceWindow = options.influenceWindow
        eventOptions.pacing = options.pacing
        deviceEvents = DeviceEventService(store: store, clock: clock, options: eventOptions)
        identities = DeviceIdentityService(store: store, clock: clock)
        segments = SegmentService(store: store, clock: clock)
        importer = UserImporter(store: store, clock: clock)
        scheduler = ReminderScheduler(
            store: store, loyalty: loyalty, clock: clock, interval: options.schedulerInterval,
            logger: logger.labeled("herald.scheduler"))
        campaignRunner = CampaignRunner(
            fanOut: CampaignFanOut(store: store, notifications: notifications, clock: clock), clock: clock,
            logger: logger.labeled("herald.campaigns"))
    }
}
