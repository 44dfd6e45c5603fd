import HeraldModel
import HeraldStore

/// Templates, and the one path from a notice (or a finished draft) to an inbox entry and its delivery jobs.
/// Writing the jobs wakes the delivery engine once the transaction commits: nobody has to remember to.
public struct NotificationService: Sendable {
    /// The service.
    public init() {}

    /// The template `businessID` uses for `event`: its own, else the default; `customized` says which.
    public func template(_ tx: StoreTransaction, businessID: Int64, event: EventName) throws -> (
        template: NotificationTemplate, customized: Bool
    )? {
        if let saved = try tx.templates.find(businessID: businessID, event: event) { return (saved, true) }
        return NotificationTemplate.default(for: event).map { ($0, false) }
    }

    /// Every event's template for `businessID` (its own, else the default) in one read.
    public func templates(_ tx: StoreTransaction, businessID: Int64) throws -> [EventName: (
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
    public func notifier(for business: Business, in tx: StoreTransaction, at now: Timestamp) -> Notifier {
        Notifier(service: self, business: business, tx: tx, now: now)
    }

    /// Writes `draft` as an entry and, unless it is not pushed, a delivery job for each device it goes to that
    /// has a push token: the one device a campaign's message is addressed to, else every device of the recipient.
    public func publish(_ draft: NotificationDraft, in tx: StoreTransaction, at now: Timestamp) throws -> InboxEntry {
        let entry = try tx.inbox.insert(draft, at: now)
        guard draft.pushStyle != .none else { return entry }
        let devices: [(id: Int64, platform: PushPlatform)]
        if let deviceID = draft.deviceID {
            devices = try tx.devices.find(id: deviceID).flatMap { $0.token == nil ? nil : [($0.id, $0.platform)] } ?? []
        } else if let userID = draft.userID {
            devices = try tx.devices.withTokens(userID: userID)
        } else {
            devices = []
        }
        for device in devices {
            try tx.deliveries.enqueue(entry, deviceID: device.id, platform: device.platform, at: now)
        }
        return entry
    }
}

/// Words notices for one business inside one transaction, and publishes them.
public final class Notifier {
    private let service: NotificationService
    /// The business whose templates word the notices.
    public let business: Business
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
    public func template(_ event: EventName) throws -> NotificationTemplate? {
        if let known = templates[event] { return known }
        let found = try service.template(tx, businessID: business.id, event: event)?.template
        templates[event] = found
        return found
    }

    /// The draft for `notice`, or nil when the business disabled its event.
    public func draft(_ notice: Notice) throws -> NotificationDraft? {
        try template(notice.event).flatMap { notice.draft(with: $0, business: business) }
    }

    /// Drafts and publishes `notice`; nil when the business disabled its event.
    @discardableResult
    public func notify(_ notice: Notice) throws -> InboxEntry? {
        try draft(notice).map { try publish($0) }
    }

    /// Publishes a finished draft.
    public func publish(_ draft: NotificationDraft) throws -> InboxEntry {
        try service.publish(draft, in: tx, at: now)
    }
}
