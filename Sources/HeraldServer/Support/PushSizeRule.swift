import HeraldHTTP
import HeraldModel
import HeraldStore

/// Refuses, when it is asked for, a notification whose push Apple would refuse: better a 422 now than a
/// delivery failed with "payload too large" later.
enum PushSizeRule {
    /// Throws 422 on `field` when `draft`'s APNs payload, with the largest badge and ids, exceeds 4096 bytes.
    static func check(_ draft: NotificationDraft, field: String) throws {
        var extras = draft.extras.objectValue ?? []
        extras.append((key: "u", value: .int(Int64(Int32.max))))
        let content = PushContent(
            notificationID: Int64(Int32.max) * 1000, title: draft.title, subtitle: draft.subtitle, body: draft.body,
            sound: draft.sound, badge: 99_999, media: draft.media, extras: extras,
            isBackground: draft.pushStyle == .background)
        let size = APNsPayload.encode(content).count
        guard size <= APNsPayload.maximumSize else {
            throw HTTPError.invalid(
                field,
                "makes a push payload of \(size) bytes; Apple accepts at most \(APNsPayload.maximumSize) "
                    + "(shorten the title, subtitle or body)")
        }
    }
}
