/// What a campaign's push carries for the SDK: `"herald":{"id":…,"message":{…}}`, the message left out when the
/// push would pass its size limit (the SDK then fetches it by id).
///
/// The server encodes the push for a message:
///
/// ```swift
/// let payload = MessagePush.apnsPayload(for: message)  // bytes for APNs, ≤ 4096 unless the alert alone passes it
/// let fcm = MessagePush.fcmMessage(token: token, for: message)  // FCM HTTP v1 {"message":{…}}
/// ```
///
/// and the SDK decodes it back from what the app received:
///
/// ```swift
/// if let push = MessagePush(apnsPayload: userInfoJSON) {
///     push.id       // always there
///     push.message  // nil when it was left out: fetch GET /api/v1/notifications/{id}
/// }
/// ```
public struct MessagePush: Sendable, Equatable {
    /// The message's id.
    public var id: String
    /// The whole message, or nil when the push left it out.
    public var message: HeraldMessage?

    /// The payload key of the object.
    public static let key = "herald"
    /// The largest FCM message payload, in bytes (FCM's documented limit for `data` and `notification`).
    public static let fcmMaximumSize = 4096

    /// A push reference for message `id`, with the message when given.
    public init(id: String, message: HeraldMessage? = nil) {
        self.id = id
        self.message = message
    }

    /// Reads the `herald` object: nil unless it has an `id`. A `message` that can't be read, or whose id isn't
    /// the push's, counts as left out (the SDK fetches the message by id).
    public init?(json: JSON) {
        guard json.objectValue != nil, let id = HeraldMessage.identifier(json["id"]) else { return nil }
        var message = json["message"].flatMap { HeraldMessage(json: $0) }
        if message?.id != id { message = nil }
        self.init(id: id, message: message)
    }

    /// Reads the `herald` key of an APNs payload (the app's `userInfo` as JSON); nil when there is none.
    public init?(apnsPayload payload: JSON) {
        guard let value = payload[Self.key] else { return nil }
        self.init(json: value)
    }

    /// Reads FCM's `data.herald`, the JSON text of the same object; nil when absent or unreadable.
    public init?(fcmData data: [String: String]) {
        guard let text = data[Self.key], let value = try? JSON.parse(text) else { return nil }
        self.init(json: value)
    }

    /// `{"id":…}`, with `"message":{…}` when there is one.
    public var json: JSON {
        var pairs: [(key: String, value: JSON)] = [("id", .string(id))]
        if let message { pairs.append(("message", message.json)) }
        return .object(pairs)
    }

    // MARK: - Encoding, for the server

    /// The APNs payload of `message`:
    /// `{"aps":{"alert":{"title":headline,"body":body},"sound":"default"},"herald":{"id","message"}}`, plus
    /// `"mutable-content":1` in `aps` and `"ab":{"att":{"url","type"}}` when the media is an image, video or
    /// audio (so a notification service extension attaches it). The message is left out of `herald` when the
    /// payload would pass `maximumSize` bytes; when even the payload without it passes, that is returned (the
    /// caller checks `count` against its limit: the alert alone is too long).
    public static func apnsPayload(for message: HeraldMessage, maximumSize: Int = APNsPayload.maximumSize)
        -> [UInt8]
    {
        let full = apnsPayload(message, includingMessage: true)
        return full.count <= maximumSize ? full : apnsPayload(message, includingMessage: false)
    }

    private static func apnsPayload(_ message: HeraldMessage, includingMessage: Bool) -> [UInt8] {
        let attachment = message.media?.attachment
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("alert")
        writer.beginObject()
        writer.field("title", message.headline)
        writer.field("body", message.body)
        writer.endObject()
        writer.field("sound", "default")
        if attachment != nil { writer.field("mutable-content", 1) }
        writer.endObject()
        if let attachment { writer.field("ab", APNsPayload.attachment(attachment)) }
        let push = MessagePush(id: message.id, message: includingMessage ? message : nil)
        writer.field(key, push.json)
        writer.endObject()
        return writer.bytes
    }

    /// FCM's `data` for `message`: `herald` as the JSON text of `{"id","message"}` and, for image, video or
    /// audio media, `ab` as the JSON text of `{"att":{"url","type"}}`. The message is left out of `herald` when
    /// `notification` and `data` together would pass `maximumSize` bytes.
    public static func fcmData(for message: HeraldMessage, maximumSize: Int = fcmMaximumSize)
        -> [(key: String, value: String)]
    {
        let full = fcmData(message, includingMessage: true)
        guard fcmSize(notification: fcmNotification(message), data: full) > maximumSize else { return full }
        return fcmData(message, includingMessage: false)
    }

    /// The FCM HTTP v1 request body for `message` to `token`: `{"message":{"token","notification":{"title",
    /// "body"(,"image")},"data":fcmData,"android":{"priority":"high","notification":{"sound":"default"}}}}`. A
    /// notification message with data: with the app in the background Android draws it from `notification` itself
    /// (an app needs no code of its own to show it), and hands `data` to the app when it is tapped; in the foreground
    /// the app's `onMessageReceived` gets both. `data.herald` carries the message's id either way, which the app
    /// shows each message once by.
    public static func fcmMessage(token: String, for message: HeraldMessage, maximumSize: Int = fcmMaximumSize)
        -> JSON
    {
        let data = fcmData(for: message, maximumSize: maximumSize)
        return .object([
            (
                "message",
                .object([
                    ("token", .string(token)), ("notification", fcmNotification(message)),
                    ("data", .object(data.map { (key: $0.key, value: JSON.string($0.value)) })),
                    ("android", .object([("priority", "high"), ("notification", .object([("sound", "default")]))])),
                ])
            )
        ])
    }

    private static func fcmNotification(_ message: HeraldMessage) -> JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("title", .string(message.headline)), ("body", .string(message.body)),
        ]
        if let media = message.media, media.type == .image { pairs.append(("image", .string(media.url))) }
        return .object(pairs)
    }

    private static func fcmData(_ message: HeraldMessage, includingMessage: Bool) -> [(key: String, value: String)] {
        var data: [(key: String, value: String)] = []
        if let attachment = message.media?.attachment {
            data.append(("ab", APNsPayload.attachment(attachment).encodedString))
        }
        data.append((key, MessagePush(id: message.id, message: includingMessage ? message : nil).json.encodedString))
        return data
    }

    private static func fcmSize(notification: JSON, data: [(key: String, value: String)]) -> Int {
        let dataJSON = JSON.object(data.map { (key: $0.key, value: JSON.string($0.value)) })
        return notification.encoded.count + dataJSON.encoded.count
    }
}
