/// The push service a device is reached through.
public struct PushPlatform: Sendable, Hashable, CustomStringConvertible {
    /// The platform's name, as stored and shown (`apns`, `fcm`).
    public let rawValue: String
    /// The platform named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Apple Push Notification service.
    public static let apns = PushPlatform("apns")
    /// Firebase Cloud Messaging.
    public static let fcm = PushPlatform("fcm")

    public var description: String { rawValue }
}
