import HeraldModel
import HeraldStore

/// Something happened to a user that the business's template for `event` turns into an inbox entry: the one
/// way every kind of notification — loyalty events, news, campaigns — is drafted.
package struct Notice: Sendable {
    /// Who it is for.
    package var user: User
    /// The template that words it.
    package var event: EventName
    /// Inbox grouping.
    package var kind: InboxKind
    /// Template values besides first_name, last_name and business (filled in when drafted).
    package var values: [String: String]
    /// Payload keys (`f`, `i`, `p`, `t`, `u`, …).
    package var extras: JSON
    /// How it is pushed.
    package var pushStyle: PushStyle
    /// False for a push with no inbox entry to show (the silent gift-card update).
    package var visibleInInbox: Bool
    /// Rich media; the template's when nil.
    package var media: MediaAttachment?
    /// The reward it announces.
    package var rewardID: Int64?
    /// Pushes sharing it replace one another on the device.
    package var collapseID: String?

    /// A notice; every field but the user and event has a default.
    package init(
        user: User, event: EventName, kind: InboxKind = .system, values: [String: String] = [:],
        extras: JSON = .object([]), pushStyle: PushStyle = .alert, visibleInInbox: Bool = true,
        media: MediaAttachment? = nil, rewardID: Int64? = nil, collapseID: String? = nil
    ) {
        self.user = user
        self.event = event
        self.kind = kind
        self.values = values
        self.extras = extras
        self.pushStyle = pushStyle
        self.visibleInInbox = visibleInInbox
        self.media = media
        self.rewardID = rewardID
        self.collapseID = collapseID
    }

    /// What `template` makes of this notice for `business`, or nil when the business disabled it.
    package func draft(with template: NotificationTemplate, business: Business) -> NotificationDraft? {
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
