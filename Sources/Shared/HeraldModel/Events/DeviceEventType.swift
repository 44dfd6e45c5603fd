/// The type of a device event (`POST /api/v1/events`): a step in a notification's life, or the app's own.
/// Open: a later Herald may add types; this version refuses the ones it doesn't know.
public struct DeviceEventType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name on the wire (`notification.opened`).
    public let rawValue: String

    /// The type named `rawValue` (known or not: check `isKnown`).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The app first saw the notification (a push in front or tapped, a pull, a geofence's answer).
    public static let notificationReceived = DeviceEventType(rawValue: "notification.received")
    /// The notification screen showed it; `data.location_id` names the location when a geofence brought it.
    public static let notificationDisplayed = DeviceEventType(rawValue: "notification.displayed")
    /// The user opened it from its system notification.
    public static let notificationOpened = DeviceEventType(rawValue: "notification.opened")
    /// The user followed its call to action.
    public static let notificationCTAClicked = DeviceEventType(rawValue: "notification.cta_clicked")
    /// The user closed the notification screen.
    public static let notificationDismissed = DeviceEventType(rawValue: "notification.dismissed")
    /// The user played its media; `data.position_seconds` is where playing started.
    public static let mediaViewed = DeviceEventType(rawValue: "media.viewed")
    /// Its media played to the end.
    public static let mediaCompleted = DeviceEventType(rawValue: "media.completed")
    /// The survey wizard opened.
    public static let notificationSurveyStarted = DeviceEventType(rawValue: "notification.survey_started")
    /// The survey was answered: `data.answers` is `[{"question_id","value"}]`.
    public static let surveySubmitted = DeviceEventType(rawValue: "survey.submitted")
    /// The app came to the front: `data` has `sdk_version`, `app_version`, `os_version`.
    public static let appOpened = DeviceEventType(rawValue: "app.opened")
    /// The app's own event: `data.name` and up to 50 `data.properties`.
    public static let custom = DeviceEventType(rawValue: "custom")

    /// Every type this version knows, in the order of the device API's list.
    public static let allKnown: [DeviceEventType] = [
        .notificationReceived, .notificationDisplayed, .notificationOpened, .notificationCTAClicked,
        .notificationDismissed, .mediaViewed, .mediaCompleted, .notificationSurveyStarted, .surveySubmitted,
        .appOpened, .custom,
    ]

    /// True for the types above.
    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// True for the types about one notification, which need a `notification_id`: all but `app.opened` and
    /// `custom`.
    public var needsNotification: Bool { isKnown && self != .appOpened && self != .custom }

    /// The name on the wire.
    public var description: String { rawValue }
}
