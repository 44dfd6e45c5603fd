/// The system's notification permission (`UNUserNotificationCenter` on iOS): read, and asked for. The SDK reads it at
/// start and each time the app comes to the front, and reports it to Herald (the install's `permissions`).
public protocol NotificationAuthorizer: Sendable {
    /// What the user allows now.
    func authorization() async -> NotificationAuthorization
    /// Asks for alerts, sounds and badges — the system's prompt, the first time — or, `provisional`, asks nothing and
    /// has notifications delivered quietly to the notification centre until the user decides; answers what the user
    /// allows afterwards.
    func requestAuthorization(provisional: Bool) async -> NotificationAuthorization
}

/// Where the user stands on notifications (`UNAuthorizationStatus`). Open: a status this version doesn't know reads as
/// not allowed.
public struct NotificationAuthorization: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The status's name.
    public let rawValue: String
    /// The status named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not asked yet.
    public static let notDetermined = Self(rawValue: "not_determined")
    /// Refused (or turned off in Settings).
    public static let denied = Self(rawValue: "denied")
    /// Allowed.
    public static let authorized = Self(rawValue: "authorized")
    /// Delivered quietly, to the notification centre only, until the user decides.
    public static let provisional = Self(rawValue: "provisional")
    /// Allowed for a limited time (App Clips).
    public static let ephemeral = Self(rawValue: "ephemeral")

    /// True when notifications reach the user: authorized, provisional or ephemeral.
    public var allowsNotifications: Bool { [.authorized, .provisional, .ephemeral].contains(self) }

    /// The name.
    public var description: String { rawValue }
}
