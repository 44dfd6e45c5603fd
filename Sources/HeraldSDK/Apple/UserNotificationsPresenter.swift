#if canImport(UserNotifications) && canImport(UIKit) && canImport(WebKit)
    import UIKit
    @preconcurrency import UserNotifications
    import HeraldModel

    /// The SDK's presenter on iOS: the notification screen as the card (`CardViewController`, the web component)
    /// over the app's top view controller, system notifications through `UNUserNotificationCenter`. App only: it
    /// finds the top view controller through `UIApplication.shared`.
    @available(iOSApplicationExtension, unavailable)
    public struct UserNotificationsPresenter: NotificationPresenter {
        /// How the card looks.
        public let appearance: CardAppearance

        /// A presenter showing cards as `appearance` says.
        public init(appearance: CardAppearance = CardAppearance()) { self.appearance = appearance }

        /// Presents the card over the app's top view controller.
        public func showScreen(_ screen: NotificationScreen) async {
            let appearance = self.appearance
            await MainActor.run {
                guard let top = Self.topViewController() else { return }
                top.present(CardViewController(screen: screen, appearance: appearance), animated: true)
            }
        }

        /// Posts the message as a local notification (tapping it comes back through `Herald.didReceive`).
        public func postSystemNotification(_ message: HeraldMessage) async {
            let content = UNMutableNotificationContent()
            content.title = message.headline
            content.body = message.body
            content.sound = .default
            content.userInfo = PushPayload.userInfo(for: message)
            let request = UNNotificationRequest(identifier: "herald.\(message.id)", content: content, trigger: nil)
            try? await UNUserNotificationCenter.current().add(request)
        }

        /// Removes the message's delivered notifications.
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

        @MainActor
        private static func topViewController() -> UIViewController? {
            let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
            let window = scenes.flatMap(\.windows).first { $0.isKeyWindow }
            var top = window?.rootViewController
            while let presented = top?.presentedViewController { top = presented }
            return top
        }
    }
#endif
