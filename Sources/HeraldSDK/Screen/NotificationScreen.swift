import Foundation
import HeraldModel

/// The notification screen's logic for one message, headless: the card, the player and the survey wizard, and the
/// events each step records (`notification.displayed` with the geofence's `location_id`, `media.viewed`,
/// `media.completed`, `notification.survey_started`, `survey.submitted`, `notification.cta_clicked`,
/// `notification.dismissed`). The Apple shell draws it and calls these methods from its buttons; an app drawing
/// its own UI can drive it the same way (`HeraldClient.screen(for:)`).
///
/// ```swift
/// let screen = client.screen(for: message)
/// screen.didAppear()     // notification.displayed (and survey_started for a survey)
/// screen.play()          // media.viewed
/// await screen.openCTA() // policy, cta_clicked, opened
/// screen.close()         // notification.dismissed
/// ```
public final class NotificationScreen: @unchecked Sendable {
    /// The message shown.
    public let message: HeraldMessage
    /// What the card shows.
    public let card: NotificationCard
    /// How the message came (a geofence's location goes into `notification.displayed`).
    public let source: ArrivalSource
    private let recorder: EventRecorder
    private let ctaOpener: CTAOpener
    private let lock = NSLock()
    private var playbackState: MediaPlayback?
    private var wizardState: SurveyWizard?
    private var appeared = false
    private var closed = false
    private var changeHandler: (@Sendable () -> Void)?

    init(message: HeraldMessage, source: ArrivalSource, recorder: EventRecorder, ctaOpener: CTAOpener) {
        self.message = message
        card = NotificationCard(message)
        self.source = source
        self.recorder = recorder
        self.ctaOpener = ctaOpener
        playbackState = card.media?.isPlayable == true ? MediaPlayback() : nil
        wizardState = SurveyWizard(message)
    }

    /// Called after every change, so a view can redraw.
    public func onChange(_ handler: (@Sendable () -> Void)?) { lock.withLock { changeHandler = handler } }

    /// The player, for video, audio and YouTube media; nil otherwise.
    public var playback: MediaPlayback? { lock.withLock { playbackState } }
    /// The survey wizard, for a survey; nil otherwise.
    public var wizard: SurveyWizard? { lock.withLock { wizardState } }
    /// True once closed (by the user, or after the call to action opened).
    public var isClosed: Bool { lock.withLock { closed } }

    /// The screen is on view: records `notification.displayed` (with `location_id` after a geofence) and, for a
    /// survey, `notification.survey_started`; once.
    public func didAppear() {
        let first = lock.withLock { () -> Bool in
            guard !appeared, !closed else { return false }
            appeared = true
            return true
        }
        guard first else { return }
        var data: JSON?
        if case .geofence(let locationID) = source { data = DeviceEvent.displayedData(locationID: locationID) }
        recorder.record(.notificationDisplayed, message: message, data: data)
        if message.isSurvey { recorder.record(.notificationSurveyStarted, message: message) }
        changed()
    }

    /// The user closed the card: records `notification.dismissed`, once; stops the player.
    public func close() {
        let first = lock.withLock { () -> Bool in
            guard !closed else { return false }
            closed = true
            playbackState?.stop()
            return true
        }
        guard first else { return }
        recorder.record(.notificationDismissed, message: message)
        changed()
    }

    // MARK: - Media

    /// Play: records `media.viewed` the first time.
    public func play() { updatePlayback { $0.play() } }
    /// Pause.
    public func pause() {
        updatePlayback { playback in
            playback.pause(); return []
        }
    }
    /// The seek bar moved.
    public func seek(to seconds: Double) {
        updatePlayback { playback in
            playback.seek(to: seconds); return []
        }
    }
    /// The player's position; the end records `media.completed`.
    public func mediaProgress(position: Double, duration: Double?) {
        updatePlayback { $0.progress(position: position, duration: duration) }
    }
    /// The player reached the end: records `media.completed`, once.
    public func mediaDidFinish() { updatePlayback { $0.finish() } }

    private func updatePlayback(_ change: (inout MediaPlayback) -> [MediaPlayback.Report]) {
        let reports = lock.withLock { () -> [MediaPlayback.Report] in
            guard !closed, var playback = playbackState else { return [] }
            let reports = change(&playback)
            playbackState = playback
            return reports
        }
        for report in reports {
            switch report {
            case .viewed(let position):
                recorder.record(
                    .mediaViewed, message: message, data: DeviceEvent.mediaViewedData(positionSeconds: position))
            case .completed:
                recorder.record(.mediaCompleted, message: message)
            }
        }
        changed()
    }

    // MARK: - Survey

    /// Answers the question on screen.
    public func answer(_ value: JSON?) {
        lock.withLock { wizardState?.answer(value) }
        changed()
    }

    /// Next; after the last question records `survey.submitted` with the answers.
    @discardableResult
    public func next() -> SurveyWizard.Advance? {
        let advance = lock.withLock { () -> SurveyWizard.Advance? in
            guard !closed, var wizard = wizardState else { return nil }
            let advance = wizard.next()
            wizardState = wizard
            return advance
        }
        if case .submitted(let answers) = advance {
            recorder.record(.surveySubmitted, message: message, data: DeviceEvent.surveySubmittedData(answers))
        }
        changed()
        return advance
    }

    /// Back.
    public func back() {
        lock.withLock { wizardState?.back() }
        changed()
    }

    // MARK: - Call to action

    /// The call to action, as the screen's button (or the thank-you step's) opens it: refused links stay on the
    /// screen; an opened one closes it without `dismissed`.
    @discardableResult
    public func openCTA() async -> CTAResult {
        let result = await ctaOpener.open(message)
        if case .opened = result {
            lock.withLock {
                closed = true
                playbackState?.stop()
            }
            changed()
        }
        return result
    }

    private func changed() {
        let handler = lock.withLock { changeHandler }
        handler?()
    }
}
