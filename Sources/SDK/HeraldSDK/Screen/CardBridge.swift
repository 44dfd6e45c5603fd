import HeraldModel

/// The SDK's end of the notification card's bridge (docs/sdk.md, "The notification card"): it reads what the card
/// posts, records each step on the `NotificationScreen` (so each lands in the event queue once, with the message's
/// id), answers `validate` with the shared `SurveyValidator`, opens links through the link policy, and tells the
/// host what to hand back to the card and when to take it away. Every platform's web view host is this plus
/// transport: the iOS one posts the card's text here and calls `heraldCard.receive(text)` with each reply.
///
/// ```swift
/// let bridge = CardBridge(screen: client.screen(for: message), appearance: CardAppearance())
/// let reply = await bridge.receive(textFromTheCard)
/// for text in reply.messages { /* webView: heraldCard.receive(text) */ }
/// if reply.closesCard { /* dismiss the web view */ }
/// ```
public struct CardBridge: Sendable {
    /// What the host does after one message from the card.
    public struct Reply: Sendable, Equatable {
        /// JSON texts to hand the card, in order (`heraldCard.receive(text)`).
        public var messages: [String] = []
        /// Take the card away: the user closed it, or its call to action opened.
        public var closesCard = false

        /// Nothing to do.
        public init() {}
    }

    /// The screen the card reports to.
    public let screen: NotificationScreen
    /// How the card looks.
    public let appearance: CardAppearance

    /// A bridge between a card showing `screen`'s message and `screen`.
    public init(screen: NotificationScreen, appearance: CardAppearance = CardAppearance()) {
        self.screen = screen
        self.appearance = appearance
    }

    /// What shows the message: `{"type":"show","message":…,"appearance":…}` (the message as the device API gives
    /// it, `HeraldMessage.json`).
    public var showMessage: String {
        JSON.object([("type", "show"), ("message", screen.message.json), ("appearance", appearance.json)])
            .encodedString
    }

    /// Handles one message the card posted (its JSON text). Messages about another message id, of kinds this SDK
    /// doesn't know, or that aren't JSON are ignored.
    public func receive(_ text: String) async -> Reply {
        var reply = Reply()
        guard let posted = CardMessage(text: text) else { return reply }
        if posted.kind == .ready {
            reply.messages = [showMessage]
            return reply
        }
        guard posted.messageID == screen.message.id else { return reply }
        switch posted.kind {
        case .displayed:
            screen.didAppear()
        case .surveyStarted:
            screen.surveyDidStart()
        case .mediaViewed:
            screen.mediaDidPlay(at: posted.positionSeconds ?? 0)
        case .mediaCompleted:
            screen.mediaDidComplete()
        case .validate:
            reply.messages = [validation(posted)]
        case .surveySubmitted:
            // The card submits only answers its `validate` passed; anything else is refused here and not recorded.
            if let answers = posted.answers { screen.submit(answers) }
        case .ctaClicked:
            if case .opened = await screen.openCTA() { reply.closesCard = true }
        case .openURL:
            if let url = posted.url { await screen.openLink(url) }
        case .dismissed:
            screen.close()
            reply.closesCard = true
        default:
            break
        }
        return reply
    }

    /// `{"type":"validation","request_id","problems":[…]}` for a `validate`.
    private func validation(_ posted: CardMessage) -> String {
        let problems =
            posted.answers.map(screen.check)
            ?? [SurveyAnswerProblem(questionID: nil, code: .notAnObject, message: "must be a list of answers")]
        return JSON.object([
            ("type", "validation"), ("request_id", posted.requestID.map(JSON.string) ?? .null),
            ("problems", .array(problems.map(\.json))),
        ]).encodedString
    }
}
