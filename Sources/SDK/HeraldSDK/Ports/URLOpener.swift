/// Opens a link outside the SDK (UIApplication on iOS): a call to action that passed the link policy.
public protocol URLOpener: Sendable {
    /// Opens `url`; answers whether something opened it.
    func open(_ url: String) async -> Bool
}
