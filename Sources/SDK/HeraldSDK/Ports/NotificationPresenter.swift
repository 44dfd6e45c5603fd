import HeraldModel

/// How the SDK shows a notification: the Apple shell puts its card over the app and posts system
/// notifications; tests record what they are asked.
public protocol NotificationPresenter: Sendable {
    /// Shows the notification screen over the app (the app is in front). The card reports to `screen` as the
    /// user goes through it (`CardBridge`: `notification.displayed` once it is on view); the presenter calls
    /// `screen.close()` if it goes away without the user.
    func showScreen(_ screen: NotificationScreen) async
    /// Shows the notification screen as `showScreen` does, and answers whether it was shown: false when it couldn't
    /// be presented (no window in front, or another presentation still running, for longer than the presenter
    /// waits; `ScreenPresentation`). The SDK counts the message shown on the screen only then; otherwise it shows
    /// it as a system notification.
    func presentScreen(_ screen: NotificationScreen) async -> Bool
    /// Posts a system notification for `message` (the app is in the background), with its call to action as an
    /// action button; tapping it comes back through `HeraldClient.handleResponse(_:action:)`.
    func postSystemNotification(_ message: HeraldMessage) async
    /// Removes the system notification for `messageID` if it is still in the notification centre (the message was
    /// shown another way, so the user doesn't see it twice).
    func removeSystemNotification(messageID: String) async
    /// Whether the screen can be shown now (a window in front to show it over). When it can't, a push in front is
    /// left to the system's banner and other messages are posted as system notifications: never shown as nothing.
    func canShowScreen() async -> Bool
}

extension NotificationPresenter {
    /// True: presenters written before `canShowScreen` existed always show.
    public func canShowScreen() async -> Bool { true }

    /// `showScreen`, and true: presenters written before `presentScreen` existed always show.
    public func presentScreen(_ screen: NotificationScreen) async -> Bool {
        await showScreen(screen)
        return true
    }
}

/// Where a geofence notice goes when there is no UI (a presenter that shows nothing); the default before the app
/// gives one.
public struct SilentPresenter: NotificationPresenter {
    /// A presenter that shows nothing.
    public init() {}
    /// Does nothing.
    public func showScreen(_ screen: NotificationScreen) async {}
    /// Does nothing.
    public func postSystemNotification(_ message: HeraldMessage) async {}
    /// Does nothing.
    public func removeSystemNotification(messageID: String) async {}
}
