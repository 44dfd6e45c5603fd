import HeraldModel

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
    private var isForeground = false
    private var notificationListener: (@Sendable (HeraldMessage) -> Void)?
    private var startRetry: ScheduledWork?
    private var stopped = false

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
            clock: environment.clock, random: environment.random, diagnostics: diagnostics)
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
        queue.setSender { events async throws(HeraldError) -> TransportResponse in
            try await session.send(.events(events))
        }
    }

    // MARK: - Life cycle

    /// Starts: finishes a deletion left pending, registers (or sends changed details, or the daily refresh), and
    /// sends waiting events. Before the first unlock (storage unavailable) it tries again later, assuming nothing.
    public func start() async {
        stopped = false
        await session.restart()
        recorder.setEnabled(true)
        await geofences.setArrive { [weak self] message, source in
            _ = await self?.arrive(message, via: source)
        }
        do {
            try await session.retryPendingDeletion()
            try await session.synchronize()
        } catch {
            if error.code == .storageUnavailable { scheduleStartRetry() }
        }
        await queue.flush()
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

    /// The app came to the front: records `app.opened`, refreshes the registration if due, pulls missed messages
    /// and sends waiting events.
    public func appDidBecomeActive() async {
        isForeground = true
        guard !stopped else { return }
        recorder.record(
            .appOpened,
            data: DeviceEvent.appOpenedData(
                sdkVersion: configuration.sdkVersion, appVersion: configuration.device.appVersion,
                osVersion: configuration.device.osVersion))
        try? await session.synchronize()
        _ = try? await pull()
        await queue.retryNow()
    }

    /// The app went to the background: new notifications become system notifications.
    public func appDidEnterBackground() { isForeground = false }

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

    /// What the user allowed; sent when it changed.
    public func setPermissions(_ permissions: Permissions) async {
        try? await session.setPermissions(permissions)
    }

    /// Replaces the device's segments (at most 100, each 1 to 255 characters).
    public func setSegments(_ segments: [String]) async throws(HeraldError) {
        try await session.setSegments(segments)
    }

    /// The install's id, once storage is readable.
    public func installID() async throws(HeraldError) -> String { try await session.installID() }

    /// A sandbox install's standing and approval code.
    public func testDevice() async -> TestDevice? { await session.testDevice() }

    /// The user logged out: the push token and segments are cleared, here and on the server.
    public func logOut() async throws(HeraldError) {
        try await session.logOut()
    }

    /// Deletes the install on the server (`DELETE /api/v1/device`: its token and events go too) and everything the
    /// SDK keeps on the device, and stops: nothing is recorded or sent until `start()` begins a new install.
    /// Offline, the local data is gone at once and the server's deletion is retried at the next start.
    public func deleteMyData() async throws(HeraldError) {
        stopped = true
        recorder.setEnabled(false)
        queue.clear()
        dedupe.clear()
        await geofences.clear()
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

    // MARK: - Arrival

    /// A push the app received (`userInfo` as JSON), in front (`tapped: false`) or tapped by the user. The message
    /// is fetched by id when the push left it out.
    public func handlePush(_ payload: JSON, tapped: Bool) async -> PushHandling {
        guard let push = MessagePush(apnsPayload: payload) else { return .notHerald }
        return await handle(push, tapped: tapped)
    }

    /// An FCM data message (`data.herald`).
    public func handlePush(fcmData data: [String: String], tapped: Bool) async -> PushHandling {
        guard let push = MessagePush(fcmData: data) else { return .notHerald }
        return await handle(push, tapped: tapped)
    }

    private func handle(_ push: MessagePush, tapped: Bool) async -> PushHandling {
        if !tapped, push.message == nil, dedupe.contains(push.id) { return .handled(.duplicate) }
        let message: HeraldMessage
        if let carried = push.message {
            message = carried
        } else {
            do {
                message = try await fetchMessage(id: push.id)
            } catch {
                environment.diagnostics(
                    HeraldDiagnostic(code: .messageUnavailable, message: "message \(push.id): \(error)"))
                return .unavailable(error)
            }
        }
        return .handled(await arrive(message, via: tapped ? .pushTapped : .pushInForeground))
    }

    /// `GET /api/v1/notifications/{id}`.
    func fetchMessage(id: String) async throws(HeraldError) -> HeraldMessage {
        let response = try await session.send(.notification(id: id))
        guard response.isSuccess else { throw InstallSession.error(from: response) }
        guard let message = HeraldMessage(json: response.body) else {
            throw HeraldError(code: .malformedResponse, status: response.status, detail: "not a message")
        }
        return message
    }

    /// Fetches the messages the server has not handed this install yet and shows each new one; answers them all.
    @discardableResult
    public func pull() async throws(HeraldError) -> [HeraldMessage] {
        guard !stopped else { throw HeraldError(code: .stopped) }
        let response = try await session.send(.pull)
        guard response.isSuccess else { throw InstallSession.error(from: response) }
        guard let items = (try? JSON.parse(response.body))?["data"]?.arrayValue else {
            throw HeraldError(code: .malformedResponse, status: response.status, detail: "no data list")
        }
        let messages = items.compactMap(HeraldMessage.init(json:))
        for message in messages { _ = await arrive(message, via: .pull) }
        return messages
    }

    /// A location fix from the system (CoreLocation): geofence crossings are posted and their notifications shown.
    public func locationDidUpdate(_ fix: LocationFix) async {
        guard !stopped else { return }
        await geofences.locationDidUpdate(fix)
    }

    /// The one path every message takes: remembered by id (the last 200 per install), `notification.received`
    /// the first time, then shown once — a tap always opens it (and records `notification.opened`).
    func arrive(_ message: HeraldMessage, via source: ArrivalSource) async -> ArrivalOutcome {
        guard !stopped else { return .duplicate }
        let first = dedupe.admit(message.id)
        if first { recorder.record(.notificationReceived, message: message) }
        if source == .pushTapped {
            recorder.record(.notificationOpened, message: message)
        } else if !first {
            return .duplicate
        }
        if source == .pull {
            // iOS may have drawn this message's push already: don't leave it to be seen twice.
            await environment.presenter.removeSystemNotification(messageID: message.id)
        }
        if let notificationListener {
            notificationListener(message)
            return .handedToListener
        }
        if isForeground || source == .pushTapped {
            await environment.presenter.showScreen(screen(for: message, source: source))
            return .shownOnScreen
        }
        await environment.presenter.postSystemNotification(message)
        return .postedSystemNotification
    }

    // MARK: - Showing and acting

    /// Shows `message` on the notification screen (a message the app kept, shown again from its inbox). It is
    /// remembered as seen, so a later push of it isn't shown again.
    public func present(_ message: HeraldMessage) async {
        _ = dedupe.admit(message.id)
        await environment.presenter.showScreen(screen(for: message, source: .app))
    }

    /// Opens `message`'s call to action as the screen would: the link policy, the click recorded, the link opened.
    public func openCta(_ message: HeraldMessage) async -> CTAResult {
        await ctaOpener.open(message)
    }

    /// The headless notification screen for `message`: what the SDK's card reports to (through `CardBridge`), for
    /// apps drawing their own card to report to the same way.
    public nonisolated func screen(for message: HeraldMessage, source: ArrivalSource = .app) -> NotificationScreen {
        NotificationScreen(message: message, source: source, recorder: recorder, ctaOpener: ctaOpener)
    }

    private nonisolated var ctaOpener: CTAOpener {
        CTAOpener(
            policy: linkPolicy, opener: environment.urlOpener, recorder: recorder,
            diagnostics: environment.diagnostics)
    }

    // MARK: - Events

    /// Records an event of the app's own: `custom` with `name` (1 to 100 of `A-Z a-z 0-9 _ . : -`) and at most 50
    /// properties (strings, numbers, booleans, null). Answers the event, or nil when refused (a diagnostic says
    /// why).
    @discardableResult
    public nonisolated func track(_ name: String, properties: [(key: String, value: JSON)] = []) -> HeraldEvent? {
        recorder.record(.custom, data: DeviceEvent.customData(name: name, properties: properties))
    }

    /// Records a lifecycle event for a message the app shows itself (`notification.opened`, …).
    @discardableResult
    public nonisolated func record(_ type: DeviceEventType, message: HeraldMessage?, data: JSON? = nil) -> HeraldEvent?
    {
        recorder.record(type, message: message, data: data)
    }

    /// Sends waiting events now.
    public func flushEvents() async { await queue.retryNow() }

    /// The events waiting to be sent, oldest first.
    public nonisolated var pendingEvents: [DeviceEvent] { queue.pending }
}
