#if canImport(UserNotifications) && canImport(UIKit) && canImport(SwiftUI)
    import SwiftUI
    import UIKit
    @preconcurrency import UserNotifications
    import HeraldModel

    /// The SDK's presenter on iOS: the notification screen as a SwiftUI card over the app's top view controller,
    /// system notifications through `UNUserNotificationCenter`.
    public struct UserNotificationsPresenter: NotificationPresenter {
        /// A presenter.
        public init() {}

        public func showScreen(_ screen: NotificationScreen) async {
            await MainActor.run {
                guard let top = Self.topViewController() else { return }
                let host = UIHostingController(rootView: NotificationCardView(screen: screen))
                host.modalPresentationStyle = .overFullScreen
                host.view.backgroundColor = .clear
                top.present(host, animated: true)
            }
        }

        public func postSystemNotification(_ message: HeraldMessage) async {
            let content = UNMutableNotificationContent()
            content.title = message.headline
            content.body = message.body
            content.sound = .default
            content.userInfo = PushPayload.userInfo(for: message)
            let request = UNNotificationRequest(identifier: "herald.\(message.id)", content: content, trigger: nil)
            try? await UNUserNotificationCenter.current().add(request)
        }

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
