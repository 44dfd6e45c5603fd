/// What opening a call to action did.
public enum CTAResult: Sendable, Equatable {
    /// Opened (and `notification.cta_clicked` recorded).
    case opened(String)
    /// The link policy refused it (nothing recorded; a diagnostic says why).
    case refused(String)
    /// Allowed and the click recorded, but nothing on the device could open it.
    case failed(String)
    /// The message has no call to action.
    case noCallToAction
}
