import HeraldModel
import HeraldEntities

/// How records look on the wire. One place per shape, so the mobile and admin APIs agree.
enum Presenter {
    /// A user as the mobile API shows them.
    static func write(_ user: User, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("user_id", user.id)
        writer.field("email", user.email)
        writer.field("first_name", user.firstName)
        writer.field("last_name", user.lastName)
        writer.field("phone", user.phone)
        writer.field("points", user.points)
        writer.field("banked_currency", user.bankedCurrency.decimal)
        writer.field("created_at", user.createdAt)
        writer.field("updated_at", user.updatedAt)
        writer.endObject()
    }

    /// An inbox entry as the mobile API lists it.
    static func write(_ entry: InboxEntry, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", entry.id)
        writer.field("kind", entry.kind.rawValue)
        writer.field("event", entry.event)
        writer.field("title", entry.title)
        writer.field("subtitle", entry.subtitle)
        writer.field("message", entry.body)
        writer.field("media", entry.media?.json ?? .null)
        writer.field("payload", entry.extras)
        writer.field("reward_id", entry.rewardID)
        writer.field("created_at", entry.createdAt)
        writer.field("read_at", entry.readAt)
        writer.endObject()
    }

    /// A delivery job as the admin API shows it.
    static func write(_ delivery: Delivery, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", delivery.id)
        writer.field("notification_id", delivery.notificationID)
        writer.field("device_id", delivery.deviceID)
        writer.field("platform", delivery.platform.rawValue)
        writer.field("status", delivery.status.rawValue)
        writer.field("attempts", delivery.attempts)
        writer.field("last_reason", delivery.lastReason)
        writer.field("provider_message_id", delivery.providerMessageID)
        // Apple's request id; an FCM push has none (Google names it by `provider_message_id`).
        writer.field("apns_id", delivery.platform == .apns ? delivery.apnsID : nil)
        writer.field("next_attempt_at", delivery.status == .queued ? delivery.nextAttemptAt : nil)
        writer.field("created_at", delivery.createdAt)
        writer.field("updated_at", delivery.updatedAt)
        writer.endObject()
    }

    /// A template as the admin API shows it.
    static func json(_ template: NotificationTemplate, customized: Bool) -> JSON {
        .object([
            ("event", .string(template.event.rawValue)),
            ("title", .string(template.title)),
            ("subtitle", .string(template.subtitle)),
            ("body", .string(template.body)),
            ("sound", .string(template.sound)),
            ("enabled", .bool(template.enabled)),
            ("media", template.media?.json ?? .null),
            (
                "placeholders",
                .array(NotificationTemplate.placeholders(for: template.event).sorted().map { .string($0) })
            ),
            ("customized", .bool(customized)),
        ])
    }

    /// A credential's settings and status (its key never), or null.
    static func json(_ credential: PushCredential?) -> JSON {
        guard let credential else { return .null }
        var pairs: [(key: String, value: JSON)] = credential.settings.keys.sorted().map {
            ($0, .string(credential.settings[$0]!))
        }
        pairs.append(("status", .string(credential.brokenReason == nil ? "ok" : "broken")))
        pairs.append(("broken_reason", JSON(credential.brokenReason)))
        pairs.append(("updated_at", .string(credential.updatedAt.iso8601)))
        return .object(pairs)
    }
}
