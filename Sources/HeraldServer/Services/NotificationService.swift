import HeraldModel
import HeraldStore

/// Something happened to a user: which event, with which values for its template and payload.
struct EventNotification: Sendable {
    var business: Business
    var user: User
    var event: EventName
    var kind: InboxKind = .system
    /// Template values besides first_name, last_name and business (filled in here).
    var values: [String: String] = [:]
    /// Payload keys (`f`, `i`, `p`, `t`, `u`, …).
    var extras: JSON = .object([])
    var pushStyle: PushStyle = .alert
    var visibleInInbox = true
    var media: MediaAttachment?
    var rewardID: Int64?
    /// Pushes sharing it replace one another on the device.
    var collapseID: String?

    /// What `template` makes of this event, or nil when the business disabled it.
    func draft(with template: NotificationTemplate) -> NotificationDraft? {
        guard template.enabled else { return nil }
        var values = values
        values["first_name"] = values["first_name"] ?? user.firstName
        values["last_name"] = values["last_name"] ?? user.lastName
        values["business"] = values["business"] ?? business.name
        let text = template.render(values)
        return NotificationDraft(
            businessID: business.id, userID: user.id, kind: kind, event: event.rawValue, title: text.title,
            subtitle: text.subtitle, body: text.body, sound: pushStyle == .background ? nil : text.sound,
            media: media ?? template.media, extras: extras, pushStyle: pushStyle, visibleInInbox: visibleInInbox,
            rewardID: rewardID, collapseID: collapseID)
    }
}

/// Turns events into inbox entries and delivery jobs, through the business's templates.
final class NotificationService: Sendable {
    private let store: any Store
    private let clock: WallClock
    private let wake: @Sendable () -> Void

    /// `wake` tells the delivery engine new jobs are due.
    init(store: any Store, clock: WallClock, wake: @escaping @Sendable () -> Void) {
        self.store = store
        self.clock = clock
        self.wake = wake
    }

    /// The template `businessID` uses for `event`: its own, else the default.
    func template(businessID: Int64, event: EventName) throws -> (template: NotificationTemplate, customized: Bool)? {
        if let saved = try store.template(businessID: businessID, event: event) { return (saved, true) }
        return NotificationTemplate.default(for: event).map { ($0, false) }
    }

    /// Every event's template for `businessID` (its own, else the default) in one read, and whether it is its own.
    func templates(businessID: Int64) throws -> [EventName: (template: NotificationTemplate, customized: Bool)] {
        var resolved: [EventName: (template: NotificationTemplate, customized: Bool)] = [:]
        for event in EventName.all {
            if let template = NotificationTemplate.default(for: event) { resolved[event] = (template, false) }
        }
        for saved in try store.templates(businessID: businessID) { resolved[saved.event] = (saved, true) }
        return resolved
    }

    /// A drafter for loyalty events of `business`, with every template resolved now (one read), so it can run
    /// inside a store transaction.
    func drafter(for business: Business) throws -> TemplateDrafter {
        TemplateDrafter(business: business, templates: try templates(businessID: business.id).mapValues(\.template))
    }

    /// The draft for one event, or nil when the business disabled its template.
    func draft(_ event: EventNotification) throws -> NotificationDraft? {
        try template(businessID: event.business.id, event: event.event).flatMap { event.draft(with: $0.template) }
    }

    /// Writes the entries (and their delivery jobs) for `events`, skipping disabled templates; wakes the workers.
    @discardableResult
    func notify(_ events: [EventNotification]) throws -> [InboxEntry?] {
        var drafts: [(index: Int, draft: NotificationDraft)] = []
        for (index, event) in events.enumerated() {
            if let draft = try draft(event) { drafts.append((index, draft)) }
        }
        guard !drafts.isEmpty else { return Array(repeating: nil, count: events.count) }
        let entries = try store.createNotifications(drafts.map(\.draft), at: clock.now())
        wake()
        var result: [InboxEntry?] = Array(repeating: nil, count: events.count)
        for (slot, entry) in zip(drafts, entries) { result[slot.index] = entry }
        return result
    }

    /// Writes entries already drafted (by a store operation that needs them in its own transaction, say) and wakes the workers.
    func enqueue(_ drafts: [NotificationDraft]) throws -> [InboxEntry] {
        let entries = try store.createNotifications(drafts, at: clock.now())
        wake()
        return entries
    }

    /// Wakes the workers (after a store operation wrote entries and jobs itself).
    func jobsAdded() { wake() }
}
