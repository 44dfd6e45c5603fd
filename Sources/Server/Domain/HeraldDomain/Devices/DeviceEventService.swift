import HeraldModel
import HeraldStore

/// What installs report (`POST /api/v1/events`) and what it adds to campaign reports.
///
/// A batch is judged by `DeviceEventValidator` — the check the SDK runs before queueing — with `survey.submitted`
/// answers judged against the survey of the message they answer. Accepted events are kept once per install and
/// event id (a retried batch is `duplicate`, counting nothing twice) and, when about a message for this install,
/// move its milestones once each: the first `notification.received` of a message counts one `received` for its
/// campaign, a second counts nothing. All in one transaction with the events.
///
/// Opens: `notification.opened` (the push tapped) is a direct open. `app.opened` is an influenced open of the
/// newest campaign message delivered to the device within `influenceWindow` before it that was not opened
/// directly, once per message. A message counted influenced and then tapped becomes a direct open (the influenced
/// count gives it back), so `opened` — messages opened either way — is always `direct_opens + influenced_opens`.
package struct DeviceEventService: Sendable {
    /// Windows.
    package struct Options: Sendable {
        /// How long after a campaign push is delivered an app open counts as influenced by it.
        package var influenceWindow: Duration = .seconds(24 * 3600)
        /// How old an event may be (the SDK keeps events 72 hours; device clocks drift).
        package var acceptedPast: Duration = .seconds(7 * 86_400)
        /// How far ahead of the server's clock an event may be (a device's clock running fast).
        package var acceptedFuture: Duration = .seconds(86_400)
        /// What holds back a business's pushes on this node now (the delivery engine's answer, handed in by the
        /// composition root): a report's `pace.paced_by`. Nothing, when no engine runs here.
        package var pacing: @Sendable (_ businessID: Int64) -> CampaignPace.Cause? = { _ in nil }

        /// The defaults: 24 hours, 7 days back, a day ahead.
        package init() {}
    }

    let store: Store
    let clock: WallClock
    /// The windows it applies.
    package let options: Options

    /// The service over `store`.
    package init(store: Store, clock: WallClock, options: Options = Options()) {
        self.store = store
        self.clock = clock
        self.options = options
    }

    /// The lifecycle milestone, and the campaign counter, each event type moves (`app.opened` and `custom` move
    /// none of their own; `notification.opened` is handled as a direct open).
    static let metrics: [DeviceEventType: CampaignMetric] = [
        .notificationReceived: .received, .notificationDisplayed: .displayed, .notificationOpened: .directOpens,
        .notificationCTAClicked: .ctaClicked, .notificationDismissed: .dismissed, .mediaViewed: .mediaViewed,
        .mediaCompleted: .mediaCompleted, .notificationSurveyStarted: .surveyStarted,
        .surveySubmitted: .surveySubmitted,
    ]

    /// When an event (or a geofence visit) seen at `now` may have occurred.
    package func acceptedTimes(at now: Timestamp) -> ClosedRange<Timestamp> {
        now.adding(.zero - options.acceptedPast)...now.adding(options.acceptedFuture)
    }

    /// Records an events body `{"events":[…]}` from `device`; answers each event's result in order. Throws the
    /// `DeviceEventProblem` of a body that isn't a batch of 1 to 100 events.
    package func record(_ body: JSON, from device: Device) throws -> [DeviceEventResult] {
        let now = clock.now()
        let validator = DeviceEventValidator(acceptedTimes: acceptedTimes(at: now))
        // The messages the events name, and the surveys answered, read before judging (outside the write
        // transaction): an event about a message that is not this install's is refused, not counted.
        var surveys: [String: SurveyDefinition] = [:]
        var known = Set<String>()
        let named = Self.notificationIDs(in: body)
        let answered = Self.surveyMessageIDs(in: body)
        if !named.isEmpty {
            try store.read { tx in
                var messages = DeviceMessages(tx)
                for id in named {
                    guard let entry = try Self.entry(id, for: device, tx) else { continue }
                    known.insert(id)
                    if answered.contains(id), let survey = try messages.message(entry).survey { surveys[id] = survey }
                }
            }
        }
        let checks = try validator.checkBatch(body) { surveys[$0] }.map { check -> DeviceEventCheck in
            guard let id = check.event?.notificationID, !known.contains(id) else { return check }
            return DeviceEventCheck(
                id: check.id, event: nil,
                problems: [
                    DeviceEventProblem(
                        field: "notification_id", code: .notFound, message: "is not a message of this install")
                ])
        }
        guard checks.contains(where: \.isAccepted) else { return checks.map(DeviceEventResult.init(rejected:)) }
        return try store.transaction { tx in
            var ledger = Ledger(device: device, tx: tx, now: now, window: options.influenceWindow)
            var results: [DeviceEventResult] = []
            results.reserveCapacity(checks.count)
            for check in checks {
                guard let event = check.event else {
                    results.append(DeviceEventResult(rejected: check))
                    continue
                }
                let kept = try tx.deviceEvents.insert(
                    deviceID: device.id, businessID: device.businessID, eventID: event.id, type: event.type.rawValue,
                    notificationID: event.notificationID.flatMap { Int64($0) }, occurredAt: event.occurredAt,
                    data: event.data, at: now)
                guard kept else {
                    results.append(DeviceEventResult(id: event.id, status: .duplicate))
                    continue
                }
                try ledger.account(event)
                results.append(DeviceEventResult(id: event.id, status: .accepted))
            }
            return results
        }
    }

    /// The report of campaign `campaignID` of `businessID` (nil when it has no such campaign): its counters as
    /// kept, read in one query, and its pace (`CampaignPace`): its answers of the last minute, read by key.
    package func report(businessID: Int64, campaignID: Int64) throws -> CampaignReport? {
        let now = clock.now()
        let found = try store.read { tx -> CampaignReport? in
            guard let campaign = try tx.campaigns.find(businessID: businessID, id: campaignID) else { return nil }
            var counts: [CampaignMetric: Int64] = [:]
            for (name, count) in try tx.campaigns.counters(campaignID: campaignID) {
                counts[CampaignMetric(name)] = count
            }
            var report = CampaignReport(counts: counts)
            // The answer periods of the last minute, the current one (partly over) included; counted from the
            // launch when that is later, so a campaign launched seconds ago is not averaged over a whole minute.
            let since = CampaignRecords.answerPeriod(of: now).adding(
                CampaignRecords.answerPeriodLength - CampaignPace.window)
            let answered = try tx.campaigns.answers(campaignID: campaignID, since: since)
            let start = max(since, campaign.launchedAt ?? since)
            let sending = [Campaign.Status.running, .paused, .completed].contains(campaign.status)
            let waiting = sending ? max(0, report[.pushes] - report[.delivered] - report[.failed]) : 0
            report.pace = CampaignPace(answered: answered, over: now.since(start), waiting: waiting, at: now)
            return report
        }
        guard var report = found else { return nil }
        // Asked of the engine outside the transaction: only while something waits is anything pacing it.
        if report.pace?.waiting ?? 0 > 0 { report.pace?.pacedBy = options.pacing(businessID) }
        // Waiting for the operator, not for time: no finish to promise.
        if report.pace?.pacedBy == .credential { report.pace?.expectedFinishAt = nil }
        return report
    }

    /// The message ids the events of `body` name (of `survey.submitted` events only, when `surveysOnly`).
    static func notificationIDs(in body: JSON, surveysOnly: Bool = false) -> Set<String> {
        var ids: Set<String> = []
        for item in body["events"]?.arrayValue?.prefix(DeviceEventValidator.maximumBatchSize) ?? [] {
            if surveysOnly, item["type"]?.stringValue != DeviceEventType.surveySubmitted.rawValue { continue }
            if let id = HeraldMessage.identifier(item["notification_id"]) { ids.insert(id) }
        }
        return ids
    }

    /// The ids of the messages `survey.submitted` events of `body` answer.
    static func surveyMessageIDs(in body: JSON) -> Set<String> { notificationIDs(in: body, surveysOnly: true) }

    /// The entry a message id names, when it is a message for `device`.
    static func entry(_ id: String, for device: Device, _ tx: StoreTransaction) throws -> InboxEntry? {
        guard let number = Int64(id), number > 0, String(number) == id else { return nil }
        return try tx.inbox.find(id: number).flatMap { device.receives($0) ? $0 : nil }
    }
}

/// What one batch's accepted events move: milestones once per message and type, campaign counters with them.
private struct Ledger {
    let device: Device
    let tx: StoreTransaction
    let now: Timestamp
    let window: Duration
    private var entries: [String: InboxEntry?] = [:]

    init(device: Device, tx: StoreTransaction, now: Timestamp, window: Duration) {
        self.device = device
        self.tx = tx
        self.now = now
        self.window = window
    }

    /// The message for this device an id names (read once per batch).
    mutating func entry(_ id: String) throws -> InboxEntry? {
        if let known = entries[id] { return known }
        let found = try DeviceEventService.entry(id, for: device, tx)
        entries[id] = found
        return found
    }

    mutating func account(_ event: DeviceEvent) throws {
        if event.type == .appOpened {
            try influencedOpen(at: event.occurredAt)
            return
        }
        guard let metric = DeviceEventService.metrics[event.type], let id = event.notificationID,
            let entry = try entry(id)
        else { return }
        if metric == .directOpens {
            try tx.countDirectOpen(of: entry, at: event.occurredAt)
        } else if try reach(entry, metric, at: event.occurredAt) {
            try count(metric, entry)
        }
    }

    private func reach(_ entry: InboxEntry, _ metric: CampaignMetric, at time: Timestamp) throws -> Bool {
        try tx.inbox.reachMilestone(notificationID: entry.id, type: metric.rawValue, at: time)
    }

    private func count(_ metric: CampaignMetric, _ entry: InboxEntry, by amount: Int64 = 1) throws {
        guard let campaignID = entry.draft.campaignID else { return }
        try tx.campaigns.count(metric, by: amount, campaignID: campaignID)
    }

    /// The app was opened at `time`: an influenced open of the newest campaign message delivered to this device
    /// within the window before (a few minutes after allowed, for clock drift), unless it was opened directly.
    private func influencedOpen(at time: Timestamp) throws {
        let openedAt = min(time, now)
        let until = min(openedAt.adding(.seconds(DeviceRequestSignature.allowedSkewSeconds)), now)
        let candidates = try tx.inbox.deliveredCampaignMessages(
            deviceID: device.id, since: openedAt.adding(.zero - window), until: until)
        guard
            let newest = try candidates.first(where: {
                try !tx.inbox.hasMilestone(notificationID: $0.id, type: CampaignMetric.directOpens.rawValue)
            })
        else { return }
        guard try reach(newest, .influencedOpens, at: time) else { return }
        try count(.influencedOpens, newest)
        if try reach(newest, .opened, at: time) { try count(.opened, newest) }
    }
}

/// The verdict on one event of a batch: `{"id","status","errors"?}`.
package struct DeviceEventResult: Sendable, Equatable {
    /// Accepted, duplicate or rejected.
    package struct Status: Sendable, Hashable, CustomStringConvertible {
        /// Its name.
        package let rawValue: String
        /// The status named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// Kept and counted.
        package static let accepted = Status("accepted")
        /// This install sent this event id before: nothing counted again.
        package static let duplicate = Status("duplicate")
        /// Refused: `errors` says why (the SDK drops it).
        package static let rejected = Status("rejected")
        package var description: String { rawValue }
    }

    /// The event's id as sent (nil when it had none readable).
    package var id: String?
    /// What became of it.
    package var status: Status
    /// Why it was rejected: `{"field":["message"]}`.
    package var errors: JSON?

    /// A result.
    package init(id: String?, status: Status, errors: JSON? = nil) {
        self.id = id
        self.status = status
        self.errors = errors
    }

    /// The rejection of a check that found problems.
    init(rejected check: DeviceEventCheck) {
        self.init(id: check.id, status: .rejected, errors: check.errors)
    }

    /// `{"id","status"}`, with `errors` when rejected.
    package var json: JSON {
        var pairs: [(key: String, value: JSON)] = [("id", JSON(id)), ("status", .string(status.rawValue))]
        if let errors { pairs.append(("errors", errors)) }
        return .object(pairs)
    }
}

/// A campaign's report: its counters as kept (`CampaignMetric`), each 0 until something counted it, and its pace.
package struct CampaignReport: Sendable, Equatable {
    /// The counters kept.
    package var counts: [CampaignMetric: Int64]
    /// How fast its pushes go and when the rest should be answered (nil: not worked out).
    package var pace: CampaignPace?

    /// A report of `counts`.
    package init(counts: [CampaignMetric: Int64], pace: CampaignPace? = nil) {
        self.counts = counts
        self.pace = pace
    }

    /// The counter `metric` (0 when none was kept).
    package subscript(metric: CampaignMetric) -> Int64 { counts[metric] ?? 0 }

    /// Every metric of `CampaignMetric.report`, in its order, then the pace:
    /// `{"targeted":…,…,"redeemed":…,"pace":{…}}`.
    package var json: JSON {
        var pairs = CampaignMetric.report.map { (key: $0.rawValue, value: JSON.int(self[$0])) }
        if let pace { pairs.append((key: "pace", value: pace.json)) }
        return .object(pairs)
    }
}

/// How fast a campaign's pushes are answered now, what waits, and when it should all be answered.
///
/// The rate is the campaign's pushes answered (delivered or failed, by any node) over the last minute — or since
/// its launch, when later — per second. What waits is its pushes queued and not answered yet (`pushes` less
/// `delivered` and `failed`; 0 once it is cancelled: what it had not sent never is). The expected finish is now
/// plus what waits at that rate (nil when nothing waits or nothing was answered lately). `pacedBy` says what holds
/// its business's pushes back on the node that answers: a spent quota (FCM's per project) or a provider shedding
/// load — what a faster Herald could not change.
package struct CampaignPace: Sendable, Equatable {
    /// What holds a campaign's pushes back.
    package enum Cause: String, Sendable {
        /// Its credential's send quota is spent: pushes wait for their turn.
        case quota
        /// Its provider sheds load (refusals lately) or asked to slow down.
        case provider
        /// Its credential is missing or refused: its pushes wait until the operator sets one, so no finish is
        /// expected.
        case credential
    }

    /// How far back the rate looks.
    package static let window: Duration = .seconds(60)

    /// Pushes answered a second, lately.
    package var ratePerSecond: Double
    /// Pushes queued and not yet answered.
    package var waiting: Int64
    /// When the last of them should be answered at this rate.
    package var expectedFinishAt: Timestamp?
    /// What paces them, if anything.
    package var pacedBy: Cause?

    /// The pace of `answered` pushes over `span`, with `waiting` left at `now`.
    package init(answered: Int64, over span: Duration, waiting: Int64, at now: Timestamp, pacedBy: Cause? = nil) {
        let seconds = max(1.0, Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18)
        let rate = Double(answered) / seconds
        ratePerSecond = (rate * 100).rounded() / 100
        self.waiting = waiting
        expectedFinishAt =
            waiting > 0 && answered > 0
            ? now.adding(.milliseconds(Int64((Double(waiting) / rate * 1000).rounded(.up)))) : nil
        self.pacedBy = pacedBy
    }

    /// `{"rate_per_second":…,"waiting":…,"expected_finish_at":…,"paced_by":…}`.
    package var json: JSON {
        .object([
            ("rate_per_second", .double(ratePerSecond)), ("waiting", .int(waiting)),
            ("expected_finish_at", JSON(expectedFinishAt?.iso8601)), ("paced_by", JSON(pacedBy?.rawValue)),
        ])
    }
}
