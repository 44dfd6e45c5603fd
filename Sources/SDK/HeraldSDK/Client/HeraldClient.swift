import HeraldModel
import HeraldPushContent

/// The SDK: one per app, made by `Herald.start(_:environment:)` (or directly, in tests, with fake ports).
///
/// Every notification, whether it came by push, pull or geofence, goes through one arrival path that remembers the
/// last 200 message ids of the install, so the same message is shown once: on the notification screen when the
/// app is in front, as a system notification when it isn't, or handed to the app's notification listener when it
/// draws notifications itself.
public actor HeraldClient {
    /// What the app configured.
    public nonisolated let configuration: HeraldConfiguration
    let environment: HeraldEnvironment
    let session: InstallSession
    let queue: EventQueue
    let recorder: EventRecorder
    let dedupe: MessageDedupe
    let geofences: GeofenceTracker
    /// The link policy calls to action pass.
    public nonisolated let linkPolicy: LinkPolicy
    let links = LinkHandlerSlot()
    var isForeground = false
    private var lifecycle = LifecycleTracker()
    var notificationListener: (@Sendable (HeraldMessage) -> Void)?
    private var startRetry: ScheduledWork?
    private var locationStarted = false
    var stopped = false

    /// A client; nothing happens until `start()`.
    public init(
        configuration: HeraldConfiguration, environment: HeraldEnvironment, linkPolicy: LinkPolicy = LinkPolicy()
    ) {
        self.configuration = configuration
        self.environment = environment
        self.linkPolicy = linkPolicy
        let diagnostics = environment.diagnostics
        session = InstallSession(
            configuration: configuration, transport: environment.transport, storage: environment.storage,
            secureStorage: environment.secureStorage, clock: environment.clock, random: environment.random,
            diagnostics: diagnostics)
        queue = EventQueue(
            options: configuration.options, storage: environment.storage, clock: environment.clock,
            random: environment.random, scheduler: environment.scheduler, diagnostics: diagnostics)
        recorder = EventRecorder(
            queue: queue, clock: environment.clock, random: environment.random, diagnostics: diagnostics)
        dedupe = MessageDedupe(
            storage: environment.storage, capacity: configuration.options.rememberedMessages, diagnostics: diagnostics)
        geofences = GeofenceTracker(
            session: session, storage: environment.storage, clock: environment.clock, random: environment.random,
            monitor: environment.regionMonitor, options: configuration.options, diagnostics: diagnostics)
        let session = self.session
        queue.setSender { events in try await session.send(.events(events)) }
    }

    // MARK: - Life cycle

    /// Starts: finishes a deletion left pending, registers (or sends changed details, or the daily refresh), sends
    /// waiting events, reads the notification and location permissions, and — location allowed — has the system
    /// watch the stored geofences and report significant location changes. Before the first unlock (storage
    /// unavailable) it tries again later, assuming nothing.
    public func start() async {
        stopped = false
        await session.restart()
        recorder.setEnabled(true)
        await geofences.setArrive { [weak self] message, source in
            _ = await self?.arrive(message, via: source)
        }
        // Read first, so that a first registration carries them.
        await refreshPermissions(send: false)
        do {
            try await session.retryPendingDeletion()
            try await session.synchronize()
        } catch {
            if error.code == .storageUnavailable { scheduleStartRetry() }
        }
        await queue.flush()
        await startLocationIfAllowed()
    }

    /// Protected data became available (the first unlock): start now if `start()` had to wait.
    public func protectedDataDidBecomeAvailable() async {
        startRetry?.cancel()
        startRetry = nil
        await start()
    }

    private func scheduleStartRetry() {
        guard startRetry == nil else { return }
        startRetry = environment.scheduler.schedule(after: .seconds(30)) { [weak self] in
            await self?.retryStart()
        }
    }

    private func retryStart() async {
        startRetry = nil
        await start()
    }

    /// The app came to the front (`applicationDidBecomeActive`): once per time it comes to the front, however many
    /// of the app's and its scenes' notifications say so, records `app.opened`, reads the permissions again, refreshes
    /// the registration if due, pulls missed messages and sends waiting events. The live environment observes this
    /// itself: forwarding it too counts once.
    public func appDidBecomeActive() async { await lifecycle(.becameActive(.app)) }

    /// The app went to the background: new notifications become system notifications.
    public func appDidEnterBackground() {
        isForeground = false
        _ = lifecycle.handle(.enteredBackground(.app))
    }

    /// What UIKit posted about the app or one of its scenes (the live environment's observer calls this).
    func lifecycle(_ event: LifecycleTracker.Event) async {
        switch lifecycle.handle(event) {
        case .cameToFront?:
            isForeground = true
            await cameToFront()
        case .wentToBackground?:
            isForeground = false
        case nil:
            break
        }
    }

    private func cameToFront() async {
        guard !stopped else { return }
        recorder.record(
            .appOpened,
            data: DeviceEvent.appOpenedData(
                sdkVersion: configuration.sdkVersion, appVersion: configuration.device.appVersion,
                osVersion: configuration.device.osVersion))
        await refreshPermissions(send: false)
        try? await session.synchronize()
        await startLocationIfAllowed()
        _ = try? await pull()
        await queue.retryNow()
    }

    /// Whether the app is in front.
    public func setForeground(_ value: Bool) { isForeground = value }

    // MARK: - Install

    /// The APNs device token as the system gave it: sent hex-encoded (any length) when it changed, and at least
    /// daily.
    public func setPushToken(_ token: [UInt8]) async {
        try? await session.setPushToken(HexEncoding.encode(token))
    }

    /// A token already in text (FCM's).
    public func setPushToken(text token: String) async {
        try? await session.setPushToken(token)
    }

    /// What the user allowed; sent when it changed. With the live environment the SDK reads this itself (at start and
    /// each time the app comes to the front): call it only when your environment has no authorizer.
    public func setPermissions(_ permissions: Permissions) async {
        try? await session.setPermissions(permissions)
    }

    // MARK: - Permissions

    /// Asks for notification permission — alerts, sounds and badges, the system's prompt the first time — or, with
    /// `provisional`, delivers quietly to the notification centre without asking; reports the answer to Herald.
    /// Answers whether notifications reach the user. False without an authorizer.
    @discardableResult
    public func requestNotificationPermission(provisional: Bool = false) async -> Bool {
        guard let authorizer = environment.notificationAuthorizer else { return false }
        let answer = await authorizer.requestAuthorization(provisional: provisional)
        await refreshPermissions()
        return answer.allowsNotifications
    }

    /// Where the user stands on notifications now; nil without an authorizer.
    public func notificationAuthorization() async -> NotificationAuthorization? {
        await environment.notificationAuthorizer?.authorization()
    }

    /// Asks for the location permission the configuration names (`Options.locationAuthorization`), reports the
    /// answer, and, allowed, starts geofencing. Answers what the user allows; `none` without a location service.
    @discardableResult
    public func requestLocationPermission() async -> Permissions.Location {
        guard let location = environment.location, configuration.options.locationAuthorization != .none else {
            return .none
        }
        let answer = await location.requestAuthorization(configuration.options.locationAuthorization)
        await refreshPermissions()
        await startLocationIfAllowed()
        return answer
    }

    /// Reads both permissions from the system (those it can) and keeps them; `send`s them when they changed.
    private func refreshPermissions(send: Bool = true) async {
        guard environment.notificationAuthorizer != nil || environment.location != nil,
            var permissions = try? await session.permissions()
        else { return }
        if let authorizer = environment.notificationAuthorizer {
            permissions.notifications = await authorizer.authorization().allowsNotifications
        }
        if let location = environment.location { permissions.location = await location.authorization() }
        try? await session.setPermissions(permissions, send: send)
    }

    /// Location allowed: the stored geofences watched at once, and significant changes reported from now on.
    private func startLocationIfAllowed() async {
        guard !stopped, !locationStarted, let location = environment.location,
            configuration.options.locationAuthorization != .none
        else { return }
        guard await location.authorization() != .none else { return }
        locationStarted = true
        await geofences.resume()
        await location.startUpdates { [weak self] fix in await self?.locationDidUpdate(fix) }
    }

    /// Replaces the device's segments (at most 100, each 1 to 255 characters).
    public func setSegments(_ segments: [String]) async throws(HeraldError) {
        try await session.setSegments(segments)
    }

    /// The install's id, once storage is readable.
    public func installID() async throws(HeraldError) -> String { try await session.installID() }

    /// A sandbox install's standing and approval code.
    public func testDevice() async -> TestDevice? { await session.testDevice() }

    // MARK: - Identity

    /// The install belongs to your user `externalID` from now on — the id the user import knows them by — so their
    /// attributes and segments reach it, and messages to them. `identityToken` vouches for the id: `<kid>.<hex>`, the
    /// lowercase hex HMAC-SHA256 of `externalID` under the business's identity key named `kid` (a bare hex for its
    /// original key), computed by your backend (never by the app).
    /// Kept and sent again at the next start when offline; a token Herald refuses throws `rejected`, and the install
    /// then belongs to nobody.
    public func identify(externalID: String, identityToken: String) async throws(HeraldError) {
        guard !stopped else { throw HeraldError(code: .stopped) }
        try await session.identify(externalID: externalID, identityToken: identityToken)
    }

    /// The install belongs to nobody from now on: messages to the user stop reaching it (its own campaigns still
    /// do). Kept and sent again at the next start when offline.
    public func logout() async throws(HeraldError) {
        guard !stopped else { throw HeraldError(code: .stopped) }
        try await session.logout()
    }

    /// The user the install was last identified as; nil after `logout()`.
    public func externalID() async -> String? { await session.externalID() }

    /// Deletes the install on the server (`DELETE /api/v1/device`: its token and events go too) and everything the
    /// SDK keeps on the device, and stops: nothing is recorded or sent until `start()` begins a new install.
    /// Offline, the local data is gone at once and the server's deletion is retried at the next start.
    public func deleteMyData() async throws(HeraldError) {
        stopped = true
        recorder.setEnabled(false)
        queue.clear()
        dedupe.clear()
        await geofences.clear()
        if locationStarted {
            locationStarted = false
            await environment.location?.stopUpdates()
        }
        try await session.deleteDevice()
    }

    // MARK: - Listeners

    /// Receives every event the SDK records (`HeraldEvent`), as it records it.
    public func setEventListener(_ listener: (@Sendable (HeraldEvent) -> Void)?) {
        recorder.setListener(listener)
    }

    /// Receives each new message instead of the SDK showing it (for apps that draw notifications themselves);
    /// `screen(for:)` gives the headless screen to drive and record events with. Nil gives showing back to the SDK.
    public func setNotificationListener(_ listener: (@Sendable (HeraldMessage) -> Void)?) {
        notificationListener = listener
    }

    /// Sees every call to action before it opens (the card's button, the notification's action button,
    /// `openCta`): answer true when the app took the link, false to let the SDK open it. Set it at launch, before the
    /// tap that launched the app is handled. Nil removes it.
    public nonisolated func setLinkHandler(_ handler: LinkHandler?) { links.set(handler) }

    /// Shows `count` on the app's icon (0 removes the badge). Pushes carrying `aps.badge` set it themselves, in the
    /// background and, through `willPresent`, in front.
    public func setBadgeCount(_ count: Int) async { await environment.badge?.setCount(max(0, count)) }
}
