#if canImport(UserNotifications) && canImport(UIKit) && canImport(WebKit) && os(iOS)
    import UIKit
    @preconcurrency import UserNotifications
    import HeraldModel
    import HeraldServiceExtension

    /// The SDK's presenter on iOS: the notification screen as the card (`CardViewController`, the web component)
    /// over the app's top view controller, system notifications through `UNUserNotificationCenter` (with the call to
    /// action as their action button). App only: it finds the top view controller through `UIApplication.shared`.
    @available(iOSApplicationExtension, unavailable)
    public struct UserNotificationsPresenter: NotificationPresenter {
        /// How the card looks.
        public let appearance: CardAppearance

        /// A presenter showing cards as `appearance` says.
        public init(appearance: CardAppearance = CardAppearance()) { self.appearance = appearance }

        /// Presents the card over the app's top view controller; a tap that launched the app waits (a few seconds at
        /// most) for its first window.
        public func showScreen(_ screen: NotificationScreen) async {
            await Self.present(screen, appearance: appearance)
        }

        @MainActor
        private static func present(_ screen: NotificationScreen, appearance: CardAppearance) async {
            guard let top = await WindowScenes.topViewController(waiting: .seconds(5)) else { return }
            top.present(CardViewController(screen: screen, appearance: appearance), animated: true)
        }

        /// True when a scene is in front with a window to show the card over.
        public func canShowScreen() async -> Bool {
            await MainActor.run { WindowScenes.topViewController() != nil }
        }

        /// Posts the message as a local notification, its call to action as an action button (tapping it comes back
        /// through the SDK's `UNUserNotificationCenter` delegate, or `Herald.didReceive(_:)`).
        public func postSystemNotification(_ message: HeraldMessage) async {
            let content = UNMutableNotificationContent()
            content.title = message.headline
            content.body = message.body
            content.sound = .default
            content.userInfo = PushPayload.userInfo(for: message)
            if let plan = NotificationActionPlan(message: message), await NotificationCategories.register(plan) {
                content.categoryIdentifier = plan.categoryIdentifier
            }
            let request = UNNotificationRequest(identifier: "herald.\(message.id)", content: content, trigger: nil)
            try? await UNUserNotificationCenter.current().add(request)
        }

        /// Removes the message's delivered notifications (pushed or posted).
        public func removeSystemNotification(messageID: String) async {
            let center = UNUserNotificationCenter.current()
            let delivered = await center.deliveredNotifications()
            let ids = delivered.filter { notification in
                guard let payload = PushPayload.json(fromUserInfo: notification.request.content.userInfo) else {
                    return false
                }
                return MessagePush(apnsPayload: payload)?.id == messageID
            }.map(\.request.identifier)
            if !ids.isEmpty { center.removeDeliveredNotifications(withIdentifiers: ids) }
        }
    }

    /// The app's windows, found through its scenes.
    @available(iOSApplicationExtension, unavailable)
    @MainActor
    enum WindowScenes {
        /// The top view controller of the key window of a scene in front; nil when no scene is.
        static func topViewController() -> UIViewController? {
            let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
                .filter { $0.activationState == .foregroundActive }
            let windows = scenes.flatMap(\.windows)
            var top = (windows.first { $0.isKeyWindow } ?? windows.first)?.rootViewController
            while let presented = top?.presentedViewController { top = presented }
            return top
        }

        /// The top view controller once there is one, checked every tenth of a second up to `limit`.
        static func topViewController(waiting limit: Duration) async -> UIViewController? {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: limit)
            while true {
                if let top = topViewController() { return top }
                guard clock.now < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
#endif
