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

        /// Presents the card over the app's top view controller (`presentScreen`).
        public func showScreen(_ screen: NotificationScreen) async {
            _ = await presentScreen(screen)
        }

        /// Presents the card over the app's top view controller once it can (`ScreenPresentation`: a tap that
        /// launched the app waits for its first window, a card asked for while another presentation or dismissal
        /// runs waits for it to end; five seconds at most); answers whether it did.
        public func presentScreen(_ screen: NotificationScreen) async -> Bool {
            await ScreenPresentation().present(screen, on: WindowStage(appearance: appearance))
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

    /// The app's top view controller as the stage for cards.
    @available(iOSApplicationExtension, unavailable)
    struct WindowStage: PresentationStage {
        let appearance: CardAppearance

        func state() async -> PresentationStageState {
            await MainActor.run {
                guard let top = WindowScenes.topViewController() else { return .absent }
                let moving = top.isBeingPresented || top.isBeingDismissed || top.transitionCoordinator != nil
                return moving ? .busy : .ready
            }
        }

        func present(_ screen: NotificationScreen) async -> Bool {
            let appearance = self.appearance
            return await MainActor.run {
                guard let top = WindowScenes.topViewController() else { return false }
                let card = CardViewController(screen: screen, appearance: appearance)
                top.present(card, animated: true)
                // UIKit refuses a presentation during another one, saying so only in the log.
                return top.presentedViewController === card
            }
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
    }
#endif
