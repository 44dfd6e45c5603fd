/// A notification as the device API hands it to the SDK (by push, pull or geofence), and as the SDK hands it to
/// the app: `{"id","campaign_id","type":"message"|"survey","headline","body","sandbox",
/// "media"?:{"type","url","thumbnail_url"?},"cta"?:{"label","url"},"questions":[…]}`.
///
/// The server builds it from a campaign and writes `json`; the SDK reads it back with the failable
/// `init(json:)`, and an app that keeps messages in its own inbox stores `jsonText` and reads it back the same way:
///
/// ```swift
/// guard let message = HeraldMessage(json: savedJSON) else { return }  // nil if it isn't one
/// message.headline
/// HeraldMessage(json: message.json) == message  // true
/// ```
public struct HeraldMessage: Sendable, Equatable {
    /// The message's id: echo it on everything reported about it (the events' `notification_id`).
    public var id: String
    /// The campaign that sent it, if any.
    public var campaignID: String?
    /// A plain message or a survey.
    public var type: MessageType
    /// The headline: the push alert's title. A sandbox message's starts with `Sandbox · `.
    public var headline: String
    /// The body text: the push alert's body.
    public var body: String
    /// Sent from a sandbox workspace to approved test devices: the screen shows a SANDBOX ribbon.
    public var isSandbox: Bool
    /// Its picture, video, audio, YouTube video or file, if any.
    public var media: MessageMedia?
    /// Its call to action, if any.
    public var cta: CallToAction?
    /// A survey's questions in order (the same definitions and rules as the admin API's surveys); empty for a
    /// plain message.
    public var questions: [SurveyQuestion]
    /// Keys this version does not know, kept in order so `json` gives back what the server sent.
    public var otherFields: [(key: String, value: JSON)]

    /// The prefix of every sandbox message's headline.
    public static let sandboxHeadlinePrefix = "Sandbox · "
    /// The longest id accepted, in bytes.
    public static let maximumIDLength = 255

    /// A message.
    public init(
        id: String, campaignID: String? = nil, type: MessageType = .message, headline: String, body: String,
        isSandbox: Bool = false, media: MessageMedia? = nil, cta: CallToAction? = nil,
        questions: [SurveyQuestion] = [], otherFields: [(key: String, value: JSON)] = []
    ) {
        self.id = id
        self.campaignID = campaignID
        self.type = type
        self.headline = headline
        self.body = body
        self.isSandbox = isSandbox
        self.media = media
        self.cta = cta
        self.questions = questions
        self.otherFields = otherFields
    }

    /// True for a survey.
    public var isSurvey: Bool { type == .survey }

    /// A survey's questions as a definition (titled with the headline) for `SurveyValidator`; nil for a plain
    /// message.
    public var survey: SurveyDefinition? {
        isSurvey ? SurveyDefinition(title: headline, questions: questions) : nil
    }

    /// Equal when every field and every kept unknown key is equal.
    public static func == (lhs: HeraldMessage, rhs: HeraldMessage) -> Bool {
        lhs.id == rhs.id && lhs.campaignID == rhs.campaignID && lhs.type == rhs.type && lhs.headline == rhs.headline
            && lhs.body == rhs.body && lhs.isSandbox == rhs.isSandbox && lhs.media == rhs.media && lhs.cta == rhs.cta
            && lhs.questions == rhs.questions && JSON.object(lhs.otherFields) == JSON.object(rhs.otherFields)
    }
}
