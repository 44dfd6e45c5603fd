import HeraldModel

/// What the event listener receives: each step the SDK records, as it records it.
///
/// ```swift
/// Herald.setEventListener { event in
///     analytics.log(event.type.rawValue, messageID: event.message?.id)
/// }
/// ```
public struct HeraldEvent: Sendable, Equatable {
    /// The event's id, as sent.
    public let id: String
    /// What happened (`notification.opened`, `custom`, …).
    public let type: DeviceEventType
    /// When.
    public let occurredAt: Timestamp
    /// The message it is about, when it is about one.
    public let message: HeraldMessage?
    /// The event's data, as sent (`{"position_seconds":12}`, `{"name":"…"}`).
    public let data: JSON?

    /// An event.
    public init(id: String, type: DeviceEventType, occurredAt: Timestamp, message: HeraldMessage?, data: JSON?) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.message = message
        self.data = data
    }
}
