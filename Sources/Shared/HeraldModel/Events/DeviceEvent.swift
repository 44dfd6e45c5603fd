/// One device event as the SDK sends it in `POST /api/v1/events`:
/// `{"id":"<uuid>","type","occurred_at","notification_id"?,"data"?}`.
///
/// ```swift
/// let event = DeviceEvent(
///     id: UUIDString.random(), type: .notificationOpened, occurredAt: clock.now(), notificationID: message.id)
/// event.json  // {"id":"…","type":"notification.opened","occurred_at":"2025-05-01T09:30:00.000Z","notification_id":"…"}
/// ```
public struct DeviceEvent: Sendable, Equatable {
    /// The event's own id, a UUID: the server answers `duplicate` for an id it already has, so a retried
    /// batch counts once.
    public var id: String
    /// What happened.
    public var type: DeviceEventType
    /// When it happened, on the device's clock.
    public var occurredAt: Timestamp
    /// The message it is about (`HeraldMessage.id`), for the notification, media and survey types.
    public var notificationID: String?
    /// The type's details, an object (see `DeviceEventValidator` for each type's), or nil.
    public var data: JSON?

    /// An event.
    public init(
        id: String, type: DeviceEventType, occurredAt: Timestamp, notificationID: String? = nil, data: JSON? = nil
    ) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.notificationID = notificationID
        self.data = data
    }

    /// `{"id","type","occurred_at"}`, with `notification_id` and `data` when set; the time in UTC with
    /// milliseconds (`2025-05-01T09:30:00.250Z`).
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("id", .string(id)), ("type", .string(type.rawValue)),
            ("occurred_at", .string(occurredAt.iso8601WithMilliseconds)),
        ]
        if let notificationID { pairs.append(("notification_id", .string(notificationID))) }
        if let data { pairs.append(("data", data)) }
        return .object(pairs)
    }

    // MARK: - Building the data of each type

    /// `notification.displayed`'s data: `{"location_id"}` when a geofence of that location brought the message.
    public static func displayedData(locationID: JSON?) -> JSON? {
        locationID.map { .object([("location_id", $0)]) }
    }

    /// `media.viewed`'s data: `{"position_seconds"}`.
    public static func mediaViewedData(positionSeconds: Double) -> JSON {
        let value: JSON =
            positionSeconds == positionSeconds.rounded() && abs(positionSeconds) < 9e15
            ? .int(Int64(positionSeconds)) : .double(positionSeconds)
        return .object([("position_seconds", value)])
    }

    /// `app.opened`'s data: `{"sdk_version","app_version","os_version"}`.
    public static func appOpenedData(sdkVersion: String, appVersion: String, osVersion: String) -> JSON {
        .object([
            ("sdk_version", .string(sdkVersion)), ("app_version", .string(appVersion)),
            ("os_version", .string(osVersion)),
        ])
    }

    /// `custom`'s data: `{"name","properties"?}`.
    public static func customData(name: String, properties: [(key: String, value: JSON)] = []) -> JSON {
        var pairs: [(key: String, value: JSON)] = [("name", .string(name))]
        if !properties.isEmpty { pairs.append(("properties", .object(properties))) }
        return .object(pairs)
    }

    /// `survey.submitted`'s data: `{"answers":[{"question_id","value"}…]}`, in the answers' order.
    public static func surveySubmittedData(_ answers: SurveyAnswers) -> JSON {
        .object([
            (
                "answers",
                .array(
                    answers.entries.map { .object([("question_id", .string($0.questionID)), ("value", $0.value)]) })
            )
        ])
    }
}
