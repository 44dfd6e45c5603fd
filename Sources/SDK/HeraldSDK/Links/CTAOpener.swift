import HeraldModel

/// Opens a message's links the way the notification screen does: the link policy first, then (for the call to
/// action) the click recorded (`notification.cta_clicked` with the URL), then the app's link handler, which may take
/// the link, and only then the link opened by the SDK.
struct CTAOpener: Sendable {
    let policy: LinkPolicy
    let opener: any URLOpener
    let recorder: EventRecorder
    let links: LinkHandlerSlot
    let diagnostics: @Sendable (HeraldDiagnostic) -> Void

    /// Opens `message`'s call to action.
    func open(_ message: HeraldMessage) async -> CTAResult {
        guard let cta = message.cta else { return .noCallToAction }
        return await openLink(cta.url, about: message) { url in
            recorder.record(.notificationCTAClicked, message: message, data: .object([("url", .string(url))]))
        }
    }

    /// Opens another link of `message` (a file it links to): the policy, then the app's link handler, then the
    /// opener; `allowed` runs once the policy has let the link through.
    func openLink(_ link: String, about message: HeraldMessage, allowed: (String) -> Void = { _ in }) async
        -> CTAResult
    {
        switch policy.evaluate(link) {
        case .refused(let reason):
            diagnostics(HeraldDiagnostic(code: .linkRefused, message: "message \(message.id): \(reason)"))
            return .refused(reason)
        case .allowed(let url):
            allowed(url)
            if let handler = links.current, await handler(HeraldLink(url: url, message: message)) {
                return .opened(url)
            }
            return await opener.open(url) ? .opened(url) : .failed(url)
        }
    }
}
