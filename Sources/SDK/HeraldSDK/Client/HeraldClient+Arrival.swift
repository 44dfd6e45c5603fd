import HeraldModel
import HeraldPushContent

/// How a message arrives — by push, by pull, by a geofence — once, and what is shown and recorded of it.
extension HeraldClient {
    // MARK: - Arrival

    /// A push arriving while the app is in front (`userNotificationCenter(_:willPresent:)`, `userInfo` as JSON): how
    /// iOS should present it — nothing more when the card shows it, the system's banner when the card can't, the
    /// push's badge either way — or nil when it isn't Herald's. A notification the SDK posted itself shows as posted.
    public func willPresent(_ payload: JSON) async -> ForegroundPresentation? {
        guard MessagePush(apnsPayload: payload) != nil else { return nil }
        if payload[PushPayload.postedLocallyKey]?.boolValue == true { return .posted }
        return ForegroundPresentation.of(await handlePush(payload, tapped: false), payload: payload)
    }

    /// What the user did with one of Herald's system notifications (`userNotificationCenter(_:didReceive:)`): a tap
    /// opens the card (`notification.opened`); the call-to-action button opens the link as the card's button would
    /// (`notification.opened`, `notification.cta_clicked`, the link handler, the link); a dismissal records
    /// `notification.dismissed`. Answers false when the notification isn't Herald's, or the action is the app's own.
    public func handleResponse(_ payload: JSON, action: NotificationResponseAction) async -> Bool {
        guard let push = MessagePush(apnsPayload: payload) else { return false }
        switch action {
        case .open:
            _ = await handle(push, tapped: true)
        case .callToAction:
            guard !stopped, let message = await message(of: push) else { return true }
            if recordArrival(of: message, via: .pushTapped) { _ = await ctaOpener.open(message) }
        case .dismiss:
            guard !stopped else { return true }
            if let message = push.message {
                _ = recordArrival(of: message, via: .pull)
                recorder.record(.notificationDismissed, message: message)
            } else {
                if dedupe.admit(push.id) { recorder.record(.notificationReceived, notificationID: push.id) }
                recorder.record(.notificationDismissed, notificationID: push.id)
            }
        default:
            return false
        }
        return true
    }

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
        switch await fetchedMessage(of: push) {
        case .success(let message):
            return .handled(await arrive(message, via: tapped ? .pushTapped : .pushInForeground))
        case .failure(let error): return .unavailable(error)
        }
    }

    /// The push's message, fetched by id when the push left it out.
    private func fetchedMessage(of push: MessagePush) async -> Result<HeraldMessage, HeraldError> {
        if let carried = push.message { return .success(carried) }
        do {
            return .success(try await fetchMessage(id: push.id))
        } catch {
            environment.diagnostics(
                HeraldDiagnostic(code: .messageUnavailable, message: "message \(push.id): \(error)"))
            return .failure(error)
        }
    }

    private func message(of push: MessagePush) async -> HeraldMessage? {
        if case .success(let message) = await fetchedMessage(of: push) { return message }
        return nil
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
        let response = try await session.send(.pull(nonce: environment.random.uuid()))
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
        guard recordArrival(of: message, via: source) else { return .duplicate }
        return await show(message, via: source)
    }

    /// Remembers `message` and records `notification.received` the first time, `notification.opened` on a tap;
    /// answers whether it is to be shown (false: stopped, or seen before and not tapped).
    private func recordArrival(of message: HeraldMessage, via source: ArrivalSource) -> Bool {
        guard !stopped else { return false }
        let first = dedupe.admit(message.id)
        if first { recorder.record(.notificationReceived, message: message) }
        if source == .pushTapped {
            recorder.record(.notificationOpened, message: message)
            return true
        }
        return first
    }

    /// Shows a message never shown: to the app's listener; on the card when the app is in front (a push in front
    /// or tapped is, whatever the app said) and the card can show; else as a system notification — the push's own
    /// banner for a push in front, one the SDK posts for the others. Never nothing.
    private func show(_ message: HeraldMessage, via source: ArrivalSource) async -> ArrivalOutcome {
        let presenter = environment.presenter
        if source == .pull {
            // iOS may have drawn this message's push already: don't leave it to be seen twice.
            await presenter.removeSystemNotification(messageID: message.id)
        }
        if let notificationListener {
            notificationListener(message)
            return .handedToListener
        }
        // A tap is shown on the card whatever the window: the presenter waits for the app's window to show it.
        var onCard = source == .pushTapped
        if !onCard, isForeground || source == .pushInForeground { onCard = await presenter.canShowScreen() }
        // Shown only once presented: a card that never could be goes the other way.
        if onCard, await presenter.presentScreen(screen(for: message, source: source)) { return .shownOnScreen }
        // A push in front that the card can't show: `willPresent` answers with the system's banner.
        if source != .pushInForeground { await presenter.postSystemNotification(message) }
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
            policy: linkPolicy, opener: environment.urlOpener, recorder: recorder, links: links,
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
