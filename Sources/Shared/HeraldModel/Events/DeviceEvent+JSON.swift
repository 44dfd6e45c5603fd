extension DeviceEvent {
    /// Reads an event's shape only: `id` and `type` strings, `occurred_at` an ISO 8601 time, `notification_id`
    /// absent, null, a string or a whole number, and `data` absent, null or any value. Nil otherwise. It does not
    /// judge the event: `DeviceEventValidator` does.
    public init?(json: JSON) {
        guard json.objectValue != nil, let id = json["id"]?.stringValue, let type = json["type"]?.stringValue,
            let time = json["occurred_at"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        else { return nil }
        var notificationID: String?
        switch json["notification_id"] {
        case nil, .null: notificationID = nil
        case let value?:
            guard let text = HeraldMessage.identifier(value) else { return nil }
            notificationID = text
        }
        let data = json["data"].flatMap { $0.isNull ? nil : $0 }
        self.init(
            id: id, type: DeviceEventType(rawValue: type), occurredAt: time, notificationID: notificationID,
            data: data)
    }
}
