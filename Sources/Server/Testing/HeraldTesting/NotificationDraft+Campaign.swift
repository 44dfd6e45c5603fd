import HeraldModel
import HeraldStore

extension NotificationDraft {
    /// A campaign's message to device `deviceID` of user `userID`, as the campaign fan-out writes it: pullable,
    /// pushed when the device has a token; a message with an image and a call to action (a survey when `questions`
    /// are given).
    ///
    /// ```swift
    /// let draft = NotificationDraft.campaignMessage(
    ///     businessID: business.id, userID: device.userID, deviceID: device.id, campaignID: campaign.id)
    /// let entry = try store.transaction { tx in try NotificationService().publish(draft, in: tx, at: now) }
    /// ```
    public static func campaignMessage(
        businessID: Int64, userID: Int64?, deviceID: Int64?, campaignID: Int64?, headline: String = "Spring sale",
        questions: JSON? = nil, trigger: String = "launch"
    ) -> NotificationDraft {
        var message: [(key: String, value: JSON)] = [
            ("type", questions == nil ? "message" : "survey"), ("headline", .string(headline)), ("body", "Half off"),
            ("sandbox", false), ("media", ["type": "image", "url": "https://cdn.example.com/a.png"]),
            ("cta", ["label": "Shop", "url": "https://example.com/shop"]),
        ]
        if let questions { message.append(("questions", questions)) }
        return NotificationDraft(
            businessID: businessID, userID: userID, kind: .campaign, event: "campaign", title: headline,
            body: "Half off", campaignID: campaignID, triggerKey: trigger, deviceID: deviceID,
            message: .object(message), pullable: true)
    }
}
