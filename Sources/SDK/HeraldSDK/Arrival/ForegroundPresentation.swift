import HeraldModel

/// What iOS should draw for a notification arriving while the app is in front (the answer to
/// `userNotificationCenter(_:willPresent:)`): never nothing for a message not shown otherwise — the SDK's card when it
/// can show it, the system's banner when it can't — and the push's badge (`aps.badge`, the server's unread count)
/// whenever the push carries one.
public struct ForegroundPresentation: Sendable, Hashable {
    /// Show the system's banner (and keep the notification in the notification centre).
    public var banner: Bool
    /// Play the push's sound.
    public var sound: Bool
    /// Apply the push's `aps.badge`.
    public var badge: Bool

    /// A presentation.
    public init(banner: Bool, sound: Bool, badge: Bool) {
        self.banner = banner
        self.sound = sound
        self.badge = badge
    }

    /// The presentation for a Herald push in front that the arrival path handled as `handling`.
    static func of(_ handling: PushHandling, payload: JSON) -> ForegroundPresentation {
        let badge = payload["aps"]?["badge"]?.int64Value != nil
        switch handling {
        case .handled(.shownOnScreen), .handled(.handedToListener), .handled(.duplicate):
            // On the card, in the app's own UI, or seen already (shown when it came another way).
            return ForegroundPresentation(banner: false, sound: false, badge: badge)
        case .handled(.postedSystemNotification), .unavailable, .notHerald:
            return ForegroundPresentation(banner: true, sound: true, badge: badge)
        }
    }

    /// The presentation of a notification the SDK posted itself (shown as posted).
    static let posted = ForegroundPresentation(banner: true, sound: true, badge: false)
}
