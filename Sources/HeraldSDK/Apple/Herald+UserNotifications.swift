#if canImport(UserNotifications)
    @preconcurrency import UserNotifications

    extension Herald {
        /// Forward `userNotificationCenter(_:willPresent:)` here (no swizzling): answers the options to show a
        /// Herald push with — none, because the SDK shows its own screen (or handed it to your listener) — or nil
        /// for a push that isn't Herald's, which your app decides about.
        public static func willPresent(_ notification: UNNotification) async -> UNNotificationPresentationOptions? {
            switch await handlePush(userInfo: notification.request.content.userInfo, tapped: false) {
            case .notHerald: return nil
            case .handled: return []
            case .unavailable: return [.banner, .list, .sound]
            }
        }

        /// Forward `userNotificationCenter(_:didReceive:)` here: answers true when it was a Herald notification
        /// (opened on the SDK's screen, `notification.opened` recorded).
        @discardableResult
        public static func didReceive(_ response: UNNotificationResponse) async -> Bool {
            guard response.actionIdentifier == UNNotificationDefaultActionIdentifier else { return false }
            let handling = await handlePush(userInfo: response.notification.request.content.userInfo, tapped: true)
            return handling != .notHerald
        }
    }
#endif
