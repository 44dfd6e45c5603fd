import HeraldModel

/// How a message reached the device.
public enum ArrivalSource: Sendable, Equatable {
    /// A push that arrived with the app in front.
    case pushInForeground
    /// A push whose system notification the user tapped.
    case pushTapped
    /// `POST /api/v1/notifications/pull` (the app came to the front, or `Herald.pull()`).
    case pull
    /// A geofence crossing's answer; `locationID` is the geofence's location, when known.
    case geofence(locationID: JSON?)
    /// The app handed it to `Herald.present(_:)` (shown again from its own inbox).
    case app
}

/// What the arrival path did with a message.
public enum ArrivalOutcome: Sendable, Equatable {
    /// Shown on the notification screen.
    case shownOnScreen
    /// Shown as a system notification: posted by the SDK (the app was in the background), or — a push in front the
    /// card couldn't show — left to the push's own banner (`willPresent` asks iOS to show it).
    case postedSystemNotification
    /// Handed to the app's notification listener.
    case handedToListener
    /// Seen before: not shown again.
    case duplicate
}
