import HeraldPushContent

/// What the user did with a system notification (`UNNotificationResponse.actionIdentifier`). Open.
public struct NotificationResponseAction: RawRepresentable, Sendable, Hashable {
    /// The action identifier, as iOS reports it.
    public let rawValue: String
    /// The action `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Tapped the notification itself (`UNNotificationDefaultActionIdentifier`): opens the card.
    public static let open = Self(rawValue: "com.apple.UNNotificationDefaultActionIdentifier")
    /// Dismissed it (`UNNotificationDismissActionIdentifier`, sent for Herald's categories).
    public static let dismiss = Self(rawValue: "com.apple.UNNotificationDismissActionIdentifier")
    /// Tapped the call-to-action button (`NotificationActionPlan.ctaActionIdentifier`).
    public static let callToAction = Self(rawValue: NotificationActionPlan.ctaActionIdentifier)
}
