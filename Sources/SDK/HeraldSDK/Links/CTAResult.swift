/// What opening a call to action (or another link of the notification screen) did.
public enum CTAResult: Sendable, Equatable {
    /// Opened — by the SDK, or taken by the app's link handler — and, for a call to action,
    /// `notification.cta_clicked` recorded.
    case opened(String)
    /// The link policy refused it (nothing recorded; a diagnostic says why).
    case refused(String)
    /// Allowed (a call to action's click recorded), but nothing on the device could open it.
    case failed(String)
    /// The message has no call to action.
    case noCallToAction
}
