import Foundation
import HeraldModel

/// One showing of a message, headless: what the notification screen reports as the user goes through it, each step
/// recorded at most once with the message's id — `notification.displayed` (with the geofence's `location_id`),
/// `notification.survey_started`, `media.viewed` (where playing started), `media.completed`, `survey.submitted`
/// (answers checked by the shared `SurveyValidator` first), `notification.cta_clicked`, `notification.dismissed`.
/// Once closed, it records nothing more.
///
/// The SDK's own card (the web component of `CardAssets`) drives it through `CardBridge`; an app that draws
/// notifications itself calls it from its own buttons (`HeraldClient.screen(for:)`).
///
/// ```swift
/// let screen = client.screen(for: message)
/// screen.didAppear()                    // notification.displayed
/// screen.mediaDidPlay(at: 0)            // media.viewed
/// screen.check(answers)                 // the validator's problems, before Next
/// screen.submit(answers)                // survey.submitted, or the problems
/// await screen.openCTA()                // policy, cta_clicked, opened
/// screen.close()                        // notification.dismissed
/// ```
public final class NotificationScreen: @unchecked Sendable {
    /// The message shown.
    public let message: HeraldMessage
    /// How the message came (a geofence's location goes into `notification.displayed`).
    public let source: ArrivalSource
    private let recorder: EventRecorder
    private let links: CTAOpener
    private let validator: SurveyValidator
    private let lock = NSLock()
    private var recorded: Set<DeviceEventType> = []
    private var closed = false

    init(message: HeraldMessage, source: ArrivalSource, recorder: EventRecorder, ctaOpener: CTAOpener) {
        self.message = message
        self.source = source
        self.recorder = recorder
        links = ctaOpener
        // A plain message has no questions: any answer to it is to an unknown question.
        validator = SurveyValidator(message.survey ?? SurveyDefinition(title: message.headline, questions: []))
    }

    /// True once closed (by the user, or after the call to action opened).
    public var isClosed: Bool { lock.withLock { closed } }

    /// Marks `type` recorded; false when it already was, or the screen is closed.
    private func first(_ type: DeviceEventType, if condition: Bool = true) -> Bool {
        lock.withLock {
            guard condition, !closed, !recorded.contains(type) else { return false }
            recorded.insert(type)
            return true
        }
    }

    /// The screen is on view: records `notification.displayed` (with `location_id` after a geofence), once.
    public func didAppear() {
        guard first(.notificationDisplayed) else { return }
        var data: JSON?
        if case .geofence(let locationID) = source { data = DeviceEvent.displayedData(locationID: locationID) }
        recorder.record(.notificationDisplayed, message: message, data: data)
    }

    /// The survey's first question is on view: records `notification.survey_started`, once, for a survey.
    public func surveyDidStart() {
        guard first(.notificationSurveyStarted, if: message.isSurvey) else { return }
        recorder.record(.notificationSurveyStarted, message: message)
    }

    /// The user tapped Play (or opened the media's file): records `media.viewed` with where it started, once.
    public func mediaDidPlay(at positionSeconds: Double) {
        guard first(.mediaViewed, if: message.media != nil) else { return }
        let position = positionSeconds.isFinite ? max(0, positionSeconds) : 0
        recorder.record(.mediaViewed, message: message, data: DeviceEvent.mediaViewedData(positionSeconds: position))
    }

    /// The media played to its end: records `media.completed`, once, after `media.viewed`.
    public func mediaDidComplete() {
        let viewed = lock.withLock { recorded.contains(.mediaViewed) }
        guard first(.mediaCompleted, if: viewed) else { return }
        recorder.record(.mediaCompleted, message: message)
    }

    /// The problems with `answers` to this survey, as the server would find them (`SurveyValidator`): what the
    /// card shows under a question before it lets Next go on. Answers to a plain message are to unknown questions.
    public func check(_ answers: SurveyAnswers) -> [SurveyAnswerProblem] { validator.validate(answers) }

    /// Submits the survey: when `check` finds nothing, records `survey.submitted` with the answers as Herald stores
    /// them (trimmed, in question order), once, and answers `[]`; otherwise records nothing and answers the problems.
    @discardableResult
    public func submit(_ answers: SurveyAnswers) -> [SurveyAnswerProblem] {
        let problems = validator.validate(answers)
        guard problems.isEmpty else { return problems }
        guard first(.surveySubmitted, if: message.isSurvey) else { return [] }
        let data = DeviceEvent.surveySubmittedData(validator.normalized(answers))
        recorder.record(.surveySubmitted, message: message, data: data)
        return []
    }

    /// The call to action, as the screen's button (or the thank-you step's) opens it: the link policy, then
    /// `notification.cta_clicked` with the URL, then the link opened. A refused link stays on the screen; an opened
    /// one closes it without `notification.dismissed`.
    @discardableResult
    public func openCTA() async -> CTAResult {
        guard !isClosed else { return .failed(message.cta?.url ?? "") }
        let result = await links.open(message)
        if case .opened = result { lock.withLock { closed = true } }
        return result
    }

    /// A link the screen shows besides its call to action (a file the message links to, a link inside a YouTube
    /// player): opened outside the app if the link policy allows it. Nothing is recorded.
    @discardableResult
    public func openLink(_ url: String) async -> CTAResult {
        await links.openLink(url, about: message)
    }

    /// The user closed the card (or it went away without them): records `notification.dismissed`, once.
    public func close() {
        let first = lock.withLock { () -> Bool in
            guard !closed else { return false }
            closed = true
            return true
        }
        guard first else { return }
        recorder.record(.notificationDismissed, message: message)
    }
}
