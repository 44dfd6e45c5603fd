/// The FCM HTTP v1 message of a push: the same keys as the APNs payload, as strings in `data`
/// (FCM allows only string values), with `notification` {title, body, image} for the alert.
public enum FCMPayload {
    /// Keys FCM refuses in `data`: `from`, `message_type`, any word starting with `google` or `gcm` (FCM's
    /// reference), and `notification`.
    public static func isReserved(_ key: String) -> Bool {
        ["from", "notification", "message_type"].contains(key) || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// The `message` object for `token`. Background pushes carry only `data` and normal priority.
    public static func message(token: String, content: PushContent, collapseKey: String? = nil) -> JSON {
        var message: [(key: String, value: JSON)] = [("token", .string(token))]
        if !content.isBackground {
            var notification: [(key: String, value: JSON)] = []
            if let title = content.title { notification.append(("title", .string(title))) }
            if let body = content.body { notification.append(("body", .string(body))) }
            if let media = content.media, ["jpg", "jpeg", "png", "gif"].contains(media.type) {
                notification.append(("image", .string(media.url)))
            }
            if !notification.isEmpty { message.append(("notification", .object(notification))) }
        }
        message.append(("data", .object(data(content).map { (key: $0.key, value: JSON.string($0.value)) })))
        var android: [(key: String, value: JSON)] = [("priority", .string(content.isBackground ? "normal" : "high"))]
        if let collapseKey { android.append(("collapse_key", .string(collapseKey))) }
        if !content.isBackground, let sound = content.sound {
            android.append(
                (
                    "notification",
                    .object([("sound", .string(sound)), ("notification_count", .int(Int64(content.badge ?? 0)))])
                ))
        }
        message.append(("android", .object(android)))
        return .object([("message", .object(message))])
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
