import HeraldModel
import HeraldStore

/// A business's templates: each event's words, its own or the default, and the rule that a saved template's push
/// must fit in what Apple accepts.
package struct TemplateService: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, notifications: NotificationService, clock: WallClock) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
    }

    /// Every event's template for `businessID` (its own, else the default); `customized` says which.
    package func all(businessID: Int64) throws -> [EventName: (template: NotificationTemplate, customized: Bool)] {
        try store.read { try notifications.templates($0, businessID: businessID) }
    }

    /// The template `businessID` uses for `event` (nil when the event has none).
    package func find(businessID: Int64, event: EventName) throws -> (
        template: NotificationTemplate, customized: Bool
    )? {
        try store.read { try notifications.template($0, businessID: businessID, event: event) }
    }

    /// Saves `template` as `businessID`'s own, refusing one whose push could pass Apple's limit (`PushSize`).
    package func save(businessID: Int64, _ template: NotificationTemplate) throws {
        try PushSize.check(template)
        let now = clock.now()
        try store.transaction { try $0.templates.save(businessID: businessID, template, at: now) }
    }
}
