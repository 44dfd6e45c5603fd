import HeraldModel
import HeraldStore

/// Sends a launched one-shot campaign to its audience in batches, each one transaction: the batch's messages
/// (a device-addressed entry per target — pushed to it and/or handed to its pull — and an inbox entry per
/// signed-in user), the counters, and the cursor past its last device. A crash between batches loses nothing and
/// doubles nobody: the next run resumes after the cursor, and a device is messaged once per campaign and trigger
/// (a unique key).
public struct CampaignFanOut: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock
    /// Devices per batch (transaction).
    let batchSize: Int

    /// A fan-out over `store`, `batchSize` devices a transaction.
    public init(store: Store, notifications: NotificationService, clock: WallClock, batchSize: Int = 1000) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
        self.batchSize = batchSize
    }

    /// What a batch did.
    public struct Batch: Sendable, Equatable {
        /// Devices of the audience handled.
        public var targeted: Int
        /// Messages made available (a push queued, a pull waiting, or an inbox entry).
        public var sent: Int
        /// Devices left out by a limit (frequency cap).
        public var capped: Int
        /// Whether the campaign has reached its whole audience now (and completed).
        public var finished: Bool
    }

    /// The one-shot campaigns to work on now: running, started, with targets left.
    public func due() throws -> [Int64] {
        let now = clock.now()
        return try store.read { tx in
            try tx.campaigns.running(at: now, limit: 100).filter { CampaignSpec($0).trigger.isOneShot }.map(\.id)
        }
    }

    /// Sends the next batch of campaign `id` (nothing when it is not running, not one-shot, or not due).
    @discardableResult
    public func step(campaign id: Int64) throws -> Batch {
        let now = clock.now()
        return try store.transaction { tx in
            guard let campaign = try tx.campaigns.lock(id: id), campaign.status == .running,
                campaign.startAt.map({ $0 <= now }) ?? true
            else { return Batch(targeted: 0, sent: 0, capped: 0, finished: false) }
            let spec = CampaignSpec(campaign)
            guard spec.trigger.isOneShot, let business = try tx.businesses.find(id: campaign.businessID) else {
                return Batch(targeted: 0, sent: 0, capped: 0, finished: false)
            }
            let targets = try tx.audiences.targets(
                businessID: campaign.businessID, audience: try audience(campaign), sandboxOnly: campaign.sandbox,
                after: campaign.fanoutCursor, limit: batchSize, at: now)
            let start = max(campaign.startAt ?? campaign.launchedAt ?? now, campaign.launchedAt ?? now)
            var targeted = try tx.campaigns.counters(campaignID: id)["targeted"] ?? 0
            var batch = Batch(targeted: targets.count, sent: 0, capped: 0, finished: targets.count < batchSize)
            let writer = CampaignMessageWriter(
                campaign: campaign, spec: spec, business: business, notifications: notifications, tx: tx, now: now)
            var sends: [(target: AudienceTarget, due: Timestamp)] = []
            sends.reserveCapacity(targets.count)
            for target in targets {
                targeted += 1
                if try writer.capped(target) {
                    batch.capped += 1
                    continue
                }
                sends.append((target, writer.dueTime(for: target, start: start, position: targeted)))
            }
            batch.sent = try writer.send(to: sends, triggerKey: "launch")
            try tx.campaigns.count("targeted", by: Int64(batch.targeted), campaignID: id)
            try tx.campaigns.count("sent", by: Int64(batch.sent), campaignID: id)
            try tx.campaigns.count("capped", by: Int64(batch.capped), campaignID: id)
            if let last = targets.last { try tx.campaigns.advanceCursor(id: id, to: last.deviceID, at: now) }
            if batch.finished {
                _ = try tx.campaigns.changeStatus(id: id, from: [.running], to: .completed, at: now, finished: true)
            }
            return batch
        }
    }

    /// The store's audience for a stored campaign: a segment's is the filter copied into it when it was created.
    func audience(_ campaign: Campaign) throws -> Audience {
        switch CampaignSpec(campaign).audience {
        case .all: return .all
        case .userIDs(let ids): return .userIDs(ids)
        case .segment:
            guard let json = campaign.audience["filter"], let filter = try? SegmentFilter(json: json) else {
                throw StoreError(.database, "campaign \(campaign.id) has a segment filter this version cannot read")
            }
            return .segment(filter)
        }
    }
}

/// Writes one campaign's messages to devices inside a transaction, applying its timing and limits.
struct CampaignMessageWriter {
    let campaign: Campaign
    let spec: CampaignSpec
    let business: Business
    let notifications: NotificationService
    let tx: StoreTransaction
    let now: Timestamp
    /// Its entries' title: the campaign's headline as stored, read from its message once, not once per target.
    private let title: String

    init(
        campaign: Campaign, spec: CampaignSpec, business: Business, notifications: NotificationService,
        tx: StoreTransaction, now: Timestamp
    ) {
        self.campaign = campaign
        self.spec = spec
        self.business = business
        self.notifications = notifications
        self.tx = tx
        self.now = now
        title = HeraldMessage(json: campaign.message)?.headline ?? spec.message.headline
    }

    /// Whether a frequency cap across campaigns keeps `target` from another message now.
    func capped(_ target: AudienceTarget) throws -> Bool {
        guard let cap = spec.limits.frequencyCap else { return false }
        let since = now.adding(.seconds(-Int64(cap.periodHours) * 3600))
        return try tx.campaigns.messages(toDevice: target.deviceID, since: since).count >= cap.count
    }

    /// Whether this campaign's own limits (cooldown, most per install) let `deviceID` have it again now.
    func allowedAgain(_ deviceID: Int64) throws -> Bool {
        let limits = spec.limits
        if let max = limits.maxPerInstall,
            try tx.campaigns.messages(toDevice: deviceID, campaignID: campaign.id, since: Timestamp(milliseconds: 0))
                .count >= max
        {
            return false
        }
        if let cooldown = limits.cooldownSeconds,
            let latest = try tx.campaigns.messages(
                toDevice: deviceID, campaignID: campaign.id, since: now.adding(.seconds(-cooldown))
            ).latest,
            latest > now.adding(.seconds(-cooldown))
        {
            return false
        }
        return true
    }

    /// When `target`'s message goes out: not before `start`; at the campaign's local time in the device's zone;
    /// the `position`-th of the campaign no sooner than its throttle allows; never in the device's quiet hours.
    func dueTime(for target: AudienceTarget, start: Timestamp, position: Int64) -> Timestamp {
        let local = LocalClock(timeZone: target.timeZone)
        var due = max(start, now)
        if case .scheduled(_, let time?) = spec.trigger { due = local.next(time, atOrAfter: due) }
        if let throttle = spec.limits.throttlePerMinute, throttle > 0 {
            due = max(due, start.adding(.seconds(60 * ((position - 1) / Int64(throttle)))))
        }
        if let quiet = spec.limits.quietHours { due = local.outside(quietHours: quiet.start, quiet.end, at: due) }
        return due
    }

    /// Writes the message to each of `targets` for `triggerKey`, going out at its `due` time: an entry addressed
    /// to the device (pushed if the campaign pushes and the device has a token; handed to its pull if the campaign
    /// pulls and it is an SDK install), and an inbox entry for its user if the campaign uses the inbox. The
    /// devices' entries and pushes are written many a statement. Returns how many targets it reached (a device's
    /// entry, or its user's inbox).
    func send(to targets: [(target: AudienceTarget, due: Timestamp)], triggerKey: String) throws -> Int {
        let channels = Set(spec.channels)
        var reached = [Bool](repeating: false, count: targets.count)
        var publications: [Publication] = []
        publications.reserveCapacity(targets.count)
        for (index, (target, due)) in targets.enumerated() {
            let push = channels.contains(.push) && target.hasToken
            let pull = channels.contains(.pull) && target.isInstall
            if push || pull {
                publications.append(devicePublication(target, due: due, push: push, pull: pull, triggerKey: triggerKey))
                reached[index] = true
            }
        }
        if channels.contains(.inbox) {
            var users = Set<Int64>()
            for (index, (target, due)) in targets.enumerated() {
                guard let userID = target.userID, users.insert(userID).inserted,
                    try !tx.campaigns.hasInboxEntry(campaignID: campaign.id, userID: userID, triggerKey: triggerKey)
                else { continue }
                publications.append(
                    Publication(
                        draft(userID: userID, deviceID: nil, pushed: false, pullable: false, triggerKey: triggerKey),
                        at: due, pushedTo: []))
                reached[index] = true
            }
        }
        _ = try notifications.publish(publications, in: tx, at: now)
        return reached.count(where: { $0 })
    }

    /// The entry addressed to one device, with its push job due at `due`.
    func deviceEntry(for target: AudienceTarget, due: Timestamp, push: Bool, pull: Bool, triggerKey: String) throws
        -> InboxEntry
    {
        try notifications.publish(
            [devicePublication(target, due: due, push: push, pull: pull, triggerKey: triggerKey)], in: tx, at: now)[0]
    }

    /// The message addressed to `target`'s device: pushed to it if `push`, handed to its pull if `pull`.
    private func devicePublication(_ target: AudienceTarget, due: Timestamp, push: Bool, pull: Bool, triggerKey: String)
        -> Publication
    {
        Publication(
            draft(
                userID: target.userID, deviceID: target.deviceID, pushed: push, pullable: pull, triggerKey: triggerKey),
            at: due, pushedTo: push ? [(target.deviceID, target.platform)] : [])
    }

    private func draft(userID: Int64?, deviceID: Int64?, pushed: Bool, pullable: Bool, triggerKey: String)
        -> NotificationDraft
    {
        NotificationDraft(
            businessID: business.id, userID: userID, kind: .campaign, event: "campaign",
            title: title, body: spec.message.body,
            media: spec.message.media?.attachment, extras: ["c": .int(campaign.id)],
            pushStyle: pushed ? .alert : .none, visibleInInbox: deviceID == nil, campaignID: campaign.id,
            triggerKey: triggerKey, deviceID: deviceID, pullable: pullable)
    }
}
