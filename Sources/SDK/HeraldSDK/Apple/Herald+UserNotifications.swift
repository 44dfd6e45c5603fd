#if canImport(UserNotifications) && os(iOS)
    @preconcurrency import UserNotifications
    import HeraldModel

    extension Herald {
        /// For an app that keeps its own `UNUserNotificationCenter` delegate after `start` (the SDK's relay does this
        /// otherwise): forward `userNotificationCenter(_:willPresent:)` here. Answers how to present a Herald
        /// notification — nothing more when the SDK's card shows it, the system's banner when it can't, the push's
        /// badge — or nil for a notification that isn't Herald's, which your app decides about.
        @MainActor
        public static func willPresent(_ notification: UNNotification) async -> UNNotificationPresentationOptions? {
            let userInfo = PushPayload.json(fromUserInfo: notification.request.content.userInfo)
            guard let client, let userInfo, let presentation = await client.willPresent(userInfo) else { return nil }
            return presentationOptions(presentation)
        }

        /// For an app that keeps its own delegate: forward `userNotificationCenter(_:didReceive:)` here. Answers true
        /// when it was Herald's (a tap opens the card, the action button its link, a dismissal is recorded).
        @MainActor
        @discardableResult
        public static func didReceive(_ response: UNNotificationResponse) async -> Bool {
            let action = NotificationResponseAction(rawValue: response.actionIdentifier)
            let userInfo = PushPayload.json(fromUserInfo: response.notification.request.content.userInfo)
            guard let client, let userInfo else { return false }
            return await client.handleResponse(userInfo, action: action)
        }

        /// iOS's options for a presentation.
        static func presentationOptions(_ presentation: ForegroundPresentation) -> UNNotificationPresentationOptions {
            var options: UNNotificationPresentationOptions = []
            if presentation.banner { options.formUnion([.banner, .list]) }
            if presentation.sound { options.insert(.sound) }
            if presentation.badge { options.insert(.badge) }
            return options
        }
    }
#endif
