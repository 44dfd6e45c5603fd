/// The APNs payload of a push, as Punchh apps receive it:
/// `{"aps":{"alert":{"title","subtitle","body"},"sound":"default","badge":10},"f":0,"i":…,"n":…,"p":12,"t":"…","u":…}`,
/// plus Braze's `"ab":{"att":{"url","type"}}` and `"mutable-content":1` for rich media, and
/// `{"aps":{"content-available":1},"gc":…}` for a background push.
public enum APNsPayload {
    /// Apple's limit for a regular push payload, in bytes.
    public static let maximumSize = 4096

    /// Encodes `content`. Keys: `aps` first, then the event keys and `n` in alphabetical order, then `ab`.
    public static func encode(_ content: PushContent) -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        if content.isBackground {
            writer.field("content-available", 1)
        } else {
            if content.title != nil || content.subtitle != nil || content.body != nil {
                writer.key("alert")
                writer.beginObject()
                if let title = content.title { writer.field("title", title) }
                if let subtitle = content.subtitle { writer.field("subtitle", subtitle) }
                if let body = content.body { writer.field("body", body) }
                writer.endObject()
            }
            if let sound = content.sound { writer.field("sound", sound) }
            if let badge = content.badge { writer.field("badge", badge) }
            if content.media != nil { writer.field("mutable-content", 1) }
        }
        writer.endObject()
        // The top-level keys in order: positions in the extras (-1 for `n`) insertion-sorted in a buffer on the
        // stack, rather than an array of the pairs (this runs for every push, with a handful of keys).
        let extras = content.extras
        withUnsafeTemporaryAllocation(of: Int.self, capacity: extras.count + 1) { order in
            var count = 0
            func key(_ position: Int) -> String { position < 0 ? "n" : extras[position].key }
            func insert(_ position: Int) {
                var slot = count
                while slot > 0 && key(position) < key(order[slot - 1]) {
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = position
                count += 1
            }
            for position in extras.indices where !PushContent.reservedKeys.contains(extras[position].key) {
                insert(position)
            }
            if !content.isBackground { insert(-1) }
            for position in order[..<count] {
                if position < 0 {
                    writer.field("n", JSON.int(content.notificationID))
                } else {
                    writer.field(extras[position].key, extras[position].value)
                }
            }
        }
        if let media = content.media, !content.isBackground { writer.field("ab", attachment(media)) }
        writer.endObject()
        return writer.bytes
    }

    /// Braze's `ab` value for `media`: `{"att":{"url":…,"type":…}}`, what a notification service
    /// extension downloads and attaches.
    public static func attachment(_ media: MediaAttachment) -> JSON {
        .object([("att", media.json)])
    }

    /// The media an `ab` value names, if it names one.
    public static func media(in ab: JSON) -> MediaAttachment? {
        guard let url = ab["att"]?["url"]?.stringValue, let type = ab["att"]?["type"]?.stringValue else { return nil }
        return MediaAttachment(url: url, type: type)
    }

    /// Decodes a payload (what the app receives in `userInfo`), or nil when it has no `aps` object.
    public static func decode(_ payload: JSON) -> PushContent? {
        guard let aps = payload["aps"], case .object = aps else { return nil }
        let alert = aps["alert"]
        var content = PushContent(notificationID: payload["n"]?.int64Value ?? 0)
        if let text = alert?.stringValue {
            content.body = text
        } else {
            content.title = alert?["title"]?.stringValue
            content.subtitle = alert?["subtitle"]?.stringValue
            content.body = alert?["body"]?.stringValue
        }
        content.sound = aps["sound"]?.stringValue
        content.badge = aps["badge"]?.int64Value.map { Int($0) }
        content.isBackground = aps["content-available"]?.int64Value == 1 && alert == nil
        content.media = payload["ab"].flatMap(media(in:))
        content.extras = (payload.objectValue ?? []).filter { !PushContent.reservedKeys.contains($0.key) }
        return content
    }
}
