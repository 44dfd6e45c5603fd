#if canImport(UserNotifications) && os(iOS)
    import Foundation
    import HeraldModel
    import UserNotifications

    /// The `UNUserNotificationCenter` delegate `Herald.start(apiKey:baseURL:)` installs (no swizzling): Herald's
    /// notifications are the SDK's — shown in front on the card or by the system's banner, taps and buttons handled —
    /// and everything else goes, unchanged and at once, to the app's own delegate (the one set before `start`, or
    /// given to it), as if iOS had called it.
    ///
    /// Nonisolated, as `UNUserNotificationCenterDelegate` is in iOS 17's and 18's SDKs (iOS calls it on a queue of its
    /// own); its completion handlers are `@Sendable` there, and here.
    final class NotificationCenterRelay: NSObject, UNUserNotificationCenterDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private weak var forwardee: (any UNUserNotificationCenterDelegate)?

        /// Becomes `center`'s delegate, forwarding to `appDelegate` or else to the delegate set before.
        func install(
            on center: UNUserNotificationCenter, forwardingTo appDelegate: (any UNUserNotificationCenterDelegate)?
        ) {
            let previous = center.delegate === self ? nil : center.delegate
            lock.lock()
            forwardee = appDelegate ?? previous ?? forwardee
            lock.unlock()
            center.delegate = self
        }

        private var appDelegate: (any UNUserNotificationCenterDelegate)? {
            lock.lock()
            defer { lock.unlock() }
            return forwardee
        }

        /// A Herald push or notification the SDK posted: `userInfo` as JSON, when the SDK is started.
        private static func heraldPayload(_ notification: UNNotification) -> (HeraldClient, JSON)? {
            guard let client = Herald.client,
                let payload = PushPayload.json(fromUserInfo: notification.request.content.userInfo),
                MessagePush(apnsPayload: payload) != nil
            else { return nil }
            return (client, payload)
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
        ) {
            guard case let (client, payload)? = Self.heraldPayload(notification) else {
                guard let appDelegate else {
                    completionHandler([])  // what iOS does for an app without a delegate
                    return
                }
                if appDelegate.userNotificationCenter?(
                    center, willPresent: notification, withCompletionHandler: completionHandler) == nil
                {
                    completionHandler([])
                }
                return
            }
            Task {
                let presentation =
                    await client.willPresent(payload) ?? ForegroundPresentation(banner: true, sound: true, badge: true)
                let options = Herald.presentationOptions(presentation)
                DispatchQueue.main.async { completionHandler(options) }
            }
        }

        func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping @Sendable () -> Void
        ) {
            let action = NotificationResponseAction(rawValue: response.actionIdentifier)
            let herald = Self.heraldPayload(response.notification)
            let ours = herald != nil && [.open, .dismiss, .callToAction].contains(action)
            guard ours, case let (client, payload)? = herald else {
                if let appDelegate,
                    appDelegate.userNotificationCenter?(
                        center, didReceive: response, withCompletionHandler: completionHandler) != nil
                {
                    return
                }
                completionHandler()
                return
            }
            Task {
                _ = await client.handleResponse(payload, action: action)
                DispatchQueue.main.async { completionHandler() }
            }
        }

        func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
            appDelegate?.userNotificationCenter?(center, openSettingsFor: notification)
        }
    }
#endif
