import HeraldModel
// The one file that writes inbox entries and delivery jobs (`InboxRecords.insert`, `DeliveryRecords.enqueue`).
@_spi(NotificationWriter) import HeraldStore

/// Templates, and the one path from a notice (or a finished draft) to an inbox entry and its delivery jobs.
/// Writing the jobs wakes the delivery engine once the transaction commits: nobody has to remember to.
public struct NotificationService: Sendable {
    /// The service.
    package init() {}

    /// The template `businessID` uses for `event`: its own, else the default; `customized` says which.
    package func template(_ tx: StoreTransaction, businessID: Int64, event: EventName) throws -> (
        template: NotificationTemplate, customized: Bool
    )? {
        if let saved = try tx.templates.find(businessID: businessID, event: event) { return (saved, true) }
        return NotificationTemplate.default(for: event).map { ($0, false) }
    }

    /// Every event's template for `businessID` (its own, else the default) in one read.
    package func templates(_ tx: StoreTransaction, businessID: Int64) throws -> [EventName: (
        template: NotificationTemplate, customized: Bool
    )] {
        var resolved: [EventName: (template: NotificationTemplate, customized: Bool)] = [:]
        for event in EventName.all {
            if let template = NotificationTemplate.default(for: event) { resolved[event] = (template, false) }
        }
        for saved in try tx.templates.all(businessID: businessID) { resolved[saved.event] = (saved, true) }
        return resolved
    }

    /// A notifier for `business` inside `tx`: it reads each template once however many notices it words.
    package func notifier(for business: Business, in tx: StoreTransaction, at now: Timestamp) -> Notifier {
        Notifier(service: self, business: business, tx: tx, now: now)
    }

    /// Writes `draft` as an entry and, unless it is not pushed, a delivery job for each device it goes to that
    /// has a push token: the one device a campaign's message is addressed to, else every device of the recipient.
    package func publish(_ draft: NotificationDraft, in tx: StoreTransaction, at now: Timestamp) throws -> InboxEntry {
        var devices: [(id: Int64, platform: PushPlatform)] = []
        if draft.pushStyle != .none {
            if let deviceID = draft.deviceID {
                devices =
                    try tx.devices.find(id: deviceID).flatMap { $0.token == nil ? nil : [($0.id, $0.platform)] }
                    ?? []
            } else if let userID = draft.userID {
                devices = try tx.devices.withTokens(userID: userID)
            }
        }
        return try publish([Publication(draft, at: now, pushedTo: devices)], in: tx, at: now)[0]
    }

    /// Writes many entries and their delivery jobs, many rows a statement (a campaign's batch): each publication's
    /// entry, dated and due at its time, and — unless its draft is not pushed — a job for each device it names.
    /// Each entry of one call has a recipient of its own (a device, or a user's inbox). The entries come back in
    /// the order given.
    ///
    /// This is the one place inbox entries and push jobs are written: every push it queues is sent with its
    /// entry's id (`n`) and, for an alert, the recipient's unread count (`aps.badge`) at send time.
    package func publish(_ publications: [Publication], in tx: StoreTransaction, at now: Timestamp) throws
        -> [InboxEntry]
    {
        guard !publications.isEmpty else { return [] }
        let entries = try tx.inbox.insert(publications.map { (draft: $0.draft, createdAt: $0.at) })
        var jobs: [(entry: InboxEntry, deviceID: Int64, platform: PushPlatform, dueAt: Timestamp)] = []
        jobs.reserveCapacity(publications.count)
        for (publication, entry) in zip(publications, entries) where publication.draft.pushStyle != .none {
            for device in publication.devices {
                jobs.append((entry, device.id, device.platform, publication.at))
            }
        }
        if !jobs.isEmpty {
            try tx.deliveries.enqueue(jobs, at: now)
            try countPushes(jobs.lazy.map(\.entry), in: tx)
        }
        return entries
    }

    /// Counts the pushes queued for campaigns' entries (`CampaignMetric.pushes`): what a report's pace waits on.
    private func countPushes(_ entries: some Sequence<InboxEntry>, in tx: StoreTransaction) throws {
        var pushes: [Int64: Int64] = [:]
        for entry in entries {
            if let campaign = entry.draft.campaignID { pushes[campaign, default: 0] += 1 }
        }
        // In id order, as the delivery queue counts answers: two transactions take the rows' locks alike.
        for (campaign, count) in pushes.sorted(by: { $0.key < $1.key }) {
            try tx.campaigns.count(.pushes, by: count, campaignID: campaign)
        }
    }

    /// Queues `entry`, written before, for more `devices` (each holding a push token), due at `dueAt`: a campaign's
    /// entry for a user whose devices its fan-out reaches in more than one batch.
    package func push(
        _ entry: InboxEntry, to devices: [(id: Int64, platform: PushPlatform)], dueAt: Timestamp,
        in tx: StoreTransaction, at now: Timestamp
    ) throws {
        guard !devices.isEmpty else { return }
        try tx.deliveries.enqueue(devices.map { (entry, $0.id, $0.platform, dueAt) }, at: now)
        try countPushes(repeatElement(entry, count: devices.count), in: tx)
    }
}

/// A draft as `NotificationService.publish` writes it: when it is dated and due, and the devices it is pushed to.
package struct Publication: Sendable {
    /// What the entry says and whom it is for.
    package var draft: NotificationDraft
    /// When the entry is dated and its pushes are due.
    package var at: Timestamp
    /// The devices it is pushed to, each holding a push token (none: an entry only shown or pulled).
    package var devices: [(id: Int64, platform: PushPlatform)]

    /// `draft`, dated and due `at`, pushed to `devices`.
    package init(_ draft: NotificationDraft, at: Timestamp, pushedTo devices: [(id: Int64, platform: PushPlatform)]) {
        self.draft = draft
        self.at = at
        self.devices = devices
    }
}

/// Words notices for one business inside one transaction, and publishes them.
package final class Notifier {
    private let service: NotificationService
    /// The business whose templates word the notices.
    package let business: Business
    private let tx: StoreTransaction
    private let now: Timestamp
    private var templates: [EventName: NotificationTemplate?] = [:]

    init(service: NotificationService, business: Business, tx: StoreTransaction, now: Timestamp) {
        self.service = service
        self.business = business
        self.tx = tx
        self.now = now
    }

    /// The template `event` is worded with (nil when no template exists for it).
    package func template(_ event: EventName) throws -> NotificationTemplate? {
        if let known = templates[event] { return known }
        let found = try service.template(tx, businessID: business.id, event: event)?.template
        templates[event] = found
        return found
    }

    /// The draft for `notice`, or nil when the business disabled its event.
    package func draft(_ notice: Notice) throws -> NotificationDraft? {
        try template(notice.event).flatMap { notice.draft(with: $0, business: business) }
    }

    /// Drafts and publishes `notice`; nil when the business disabled its event.
    @discardableResult
    package func notify(_ notice: Notice) throws -> InboxEntry? {
        try draft(notice).map { try publish($0) }
    }

    /// Publishes a finished draft.
    package func publish(_ draft: NotificationDraft) throws -> InboxEntry {
        try service.publish(draft, in: tx, at: now)
    }
}
