import HeraldModel

/// Opens a message's call to action the way the notification screen does: the link policy first, then the click
/// recorded (`notification.cta_clicked` with the URL), then the link opened.
struct CTAOpener: Sendable {
    let policy: LinkPolicy
    let opener: any URLOpener
    let recorder: EventRecorder
    let diagnostics: @Sendable (HeraldDiagnostic) -> Void

    /// Opens `message`'s call to action.
    func open(_ message: HeraldMessage) async -> CTAResult {
        guard let cta = message.cta else { return .noCallToAction }
        switch policy.evaluate(cta.url) {
        case .refused(let reason):
            diagnostics(HeraldDiagnostic(code: .linkRefused, message: "message \(message.id): \(reason)"))
            return .refused(reason)
        case .allowed(let url):
            recorder.record(.notificationCTAClicked, message: message, data: .object([("url", .string(url))]))
            return await opener.open(url) ? .opened(url) : .failed(url)
        }
    }
}
