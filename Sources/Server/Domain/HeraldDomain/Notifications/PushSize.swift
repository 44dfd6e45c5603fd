import HeraldModel
import HeraldStore

/// Refuses, when it is asked for, a notification whose push Apple would refuse: better a 422 now than a
/// delivery failed with "payload too large" later.
package enum PushSize {
    /// The most characters the APIs accept for the names placeholders stand for (business, location and offer
    /// names, survey titles); other text placeholders (a person's name, a transaction id) hold at most 100.
    package static let longestNames: [String: Int] = [
        "business": 200, "location": 200, "offer": 200, "reward": 200, "survey": SurveyDefinition.maximumTitleLength,
    ]

    /// Refuses (`DomainError.invalid` on `body`) when `template` could make a push Apple refuses: filled with every placeholder at its
    /// longest (names of four-byte characters as long as `longestNames` allows; numbers of 20 digits) and event
    /// keys of the largest size (a 100-character transaction id, the largest ids), its APNs payload must fit in
    /// 4096 bytes.
    package static func check(_ template: NotificationTemplate) throws {
        let longestNumber = String(repeating: "9", count: 20)
        let numbers: Set = ["points", "total_points", "discount", "balance", "amount", "expiry"]
        let values = Dictionary(
            uniqueKeysWithValues: NotificationTemplate.placeholders(for: template.event).map {
                (
                    $0,
                    numbers.contains($0)
                        ? longestNumber : String(repeating: "\u{1F354}", count: longestNames[$0] ?? 100)
                )
            })
        let rendered = template.render(values)
        let largestID = JSON.int(Int64.max)
        let draft = NotificationDraft(
            businessID: 0, userID: 0, kind: .system, event: template.event.rawValue, title: rendered.title,
            subtitle: rendered.subtitle, body: rendered.body, sound: rendered.sound, media: template.media,
            extras: .object([
                ("f", .int(1)), ("i", largestID), ("p", largestID), ("s", largestID),
                ("t", .string(String(repeating: "T", count: 100))),
            ]),
            pushStyle: template.event == .giftCard ? .background : .alert)
        try check(
            draft, field: "body",
            filled: "with its placeholders at their longest (names of up to 200 characters, numbers of 20 digits) ")
    }

    /// Refuses (`DomainError.invalid` on `field`) when `draft`'s APNs payload, with the largest badge and ids, exceeds 4096 bytes.
    package static func check(_ draft: NotificationDraft, field: String, filled: String = "") throws {
        var extras = draft.extras.objectValue ?? []
        extras.append((key: "u", value: .int(Int64(Int32.max))))
        let content = PushContent(
            notificationID: Int64(Int32.max) * 1000, title: draft.title, subtitle: draft.subtitle, body: draft.body,
            sound: draft.sound, badge: 99_999, media: draft.media, extras: extras,
            isBackground: draft.pushStyle == .background)
        let size = APNsPayload.encode(content).count
        guard size <= APNsPayload.maximumSize else {
            throw DomainError(
                .invalid, field: field,
                "\(filled)makes a push payload of \(size) bytes; Apple accepts at most \(APNsPayload.maximumSize) "
                    + "(shorten the title, subtitle or body)")
        }
    }
}
