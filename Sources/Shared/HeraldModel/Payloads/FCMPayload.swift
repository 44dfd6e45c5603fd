/// The FCM HTTP v1 message of a push: the same keys as the APNs payload, as strings in `data`
/// (FCM allows only string values), with `notification` {title, body, image} for the alert.
public enum FCMPayload {
    /// Keys FCM refuses in `data`: `from`, `message_type`, any word starting with `google` or `gcm` (FCM's
    /// reference), and `notification`.
    public static func isReserved(_ key: String) -> Bool {
        ["from", "notification", "message_type"].contains(key) || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// The FCM HTTP v1 request body for `token`, `{"message":{…}}`, written straight into bytes (it is built for
    /// every Android push: a tree of values first cost ~2 µs a push more). Background pushes carry only `data` and
    /// normal priority:
    /// `{"message":{"token","notification":{"title","body"(,"image")},"data":data(content),"android":{"priority":
    /// "high"(,"collapse_key"),"notification":{"sound","notification_count"}}}}`.
    public static func encode(token: String, content: PushContent, collapseKey: String? = nil) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.field("token", token)
        let image = content.media.flatMap { ["jpg", "jpeg", "png", "gif"].contains($0.type) ? $0.url : nil }
        if !content.isBackground, content.title != nil || content.body != nil || image != nil {
            writer.key("notification")
            writer.beginObject()
            if let title = content.title { writer.field("title", title) }
            if let body = content.body { writer.field("body", body) }
            if let image { writer.field("image", image) }
            writer.endObject()
        }
        writer.key("data")
        writer.beginObject()
        for (key, value) in data(content) { writer.field(key, value) }
        writer.endObject()
        writer.key("android")
        writer.beginObject()
        writer.field("priority", content.isBackground ? "normal" : "high")
        if let collapseKey { writer.field("collapse_key", collapseKey) }
        if !content.isBackground, let sound = content.sound {
            writer.key("notification")
            writer.beginObject()
            writer.field("sound", sound)
            writer.field("notification_count", content.badge ?? 0)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The `data` map: every payload key as a string (`n`, the event keys, `subtitle`, `badge`, and rich media's
    /// `ab` as the JSON text of its APNs value, `{"att":{"url":…,"type":…}}`, as docs/openapi.json has it).
    public static func data(_ content: PushContent) -> [(key: String, value: String)] {
        var data: [(key: String, value: String)] = []
        for pair in content.extras where !PushContent.reservedKeys.contains(pair.key) && !isReserved(pair.key) {
            data.append((pair.key, string(pair.value)))
        }
        if !content.isBackground {
            data.append(("n", String(content.notificationID)))
            if let subtitle = content.subtitle { data.append(("subtitle", subtitle)) }
            if let badge = content.badge { data.append(("badge", String(badge))) }
            if let media = content.media { data.append(("ab", APNsPayload.attachment(media).encodedString)) }
        } else {
            data.append(("content_available", "1"))
        }
        return data.sorted { $0.key < $1.key }
    }

    /// Decodes what an Android app receives: the `data` map, and the notification's title and body.
    public static func decode(data: [String: String], title: String? = nil, body: String? = nil) -> PushContent {
        var content = PushContent(notificationID: data["n"].flatMap { Int64($0) } ?? 0, title: title, body: body)
        content.subtitle = data["subtitle"]
        content.badge = data["badge"].flatMap { Int($0) }
        content.isBackground = data["content_available"] == "1"
        if let text = data["ab"], let ab = try? JSON.parse(text) {
            content.media = APNsPayload.media(in: ab)
        }
        let own: Set<String> = ["n", "subtitle", "badge", "content_available", "ab"]
        content.extras = data.keys.sorted().filter { !own.contains($0) }.map { key in
            let text = data[key]!
            return (key: key, value: Int64(text).map { JSON.int($0) } ?? .string(text))
        }
        return content
    }

    static func string(_ value: JSON) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): return flag ? "1" : "0"
        case .null: return ""
        default: return value.encodedString
        }
    }
}
