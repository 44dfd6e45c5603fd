import HeraldModel

/// One message the notification card posts to its host, as JSON text: `{"type","message_id"?,…}`, the card → host
/// half of the bridge docs/sdk.md describes ("The notification card").
///
/// ```swift
/// let posted = CardMessage(text: #"{"type":"media_viewed","message_id":"42","position_seconds":3}"#)
/// posted?.kind           // .mediaViewed
/// posted?.positionSeconds  // 3
/// ```
public struct CardMessage: Sendable, Equatable {
    /// What the card says happened. Open: a later card may post kinds this SDK ignores.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        /// The `type` on the bridge.
        public let rawValue: String
        /// The kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The card's script runs: send it `show`.
        public static let ready = Kind(rawValue: "ready")
        /// The message is on view.
        public static let displayed = Kind(rawValue: "displayed")
        /// A survey's first question is on view.
        public static let surveyStarted = Kind(rawValue: "survey_started")
        /// Play was tapped (or the media's file opened); `position_seconds` is where it started.
        public static let mediaViewed = Kind(rawValue: "media_viewed")
        /// The media played to its end.
        public static let mediaCompleted = Kind(rawValue: "media_completed")
        /// Check `answers`; answer `validation` with the same `request_id`.
        public static let validate = Kind(rawValue: "validate")
        /// The survey was answered: `answers`.
        public static let surveySubmitted = Kind(rawValue: "survey_submitted")
        /// The call to action was tapped.
        public static let ctaClicked = Kind(rawValue: "cta_clicked")
        /// Open `url` outside (a file the message links to).
        public static let openURL = Kind(rawValue: "open_url")
        /// The user closed the card.
        public static let dismissed = Kind(rawValue: "dismissed")
    }

    /// What happened.
    public let kind: Kind
    /// The message it is about (all but `ready`).
    public let messageID: String?
    /// A `validate`'s id, echoed in its `validation`.
    public let requestID: String?
    /// A `media_viewed`'s position.
    public let positionSeconds: Double?
    /// A `validate`'s or `survey_submitted`'s answers, read from `[{"question_id","value"}]`; nil when absent or
    /// not that list.
    public let answers: SurveyAnswers?
    /// An `open_url`'s or `cta_clicked`'s link.
    public let url: String?

    /// Reads what the card posted; nil when it isn't a JSON object with a string `type`.
    public init?(text: String) {
        guard let json = try? JSON.parse(text), json.objectValue != nil,
            let type = json["type"]?.stringValue, !type.isEmpty
        else { return nil }
        kind = Kind(rawValue: type)
        messageID = json["message_id"]?.stringValue
        switch json["request_id"] {
        case .string(let id): requestID = id
        case .int(let id): requestID = String(id)
        default: requestID = nil
        }
        positionSeconds = json["position_seconds"]?.doubleValue
        answers = json["answers"].flatMap { DeviceEvent.surveyAnswers(inData: .object([("answers", $0)])) }
        url = json["url"]?.stringValue
    }
}
