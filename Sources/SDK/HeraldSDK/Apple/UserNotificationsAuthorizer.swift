#if canImport(UserNotifications) && os(iOS)
    @preconcurrency import UserNotifications

    /// The notification permission through `UNUserNotificationCenter`: alerts, sounds and badges, provisional on
    /// request.
    public struct UserNotificationsAuthorizer: NotificationAuthorizer {
        /// An authorizer.
        public init() {}

        /// The status iOS reports now.
        public func authorization() async -> NotificationAuthorization {
            let settings = await UNUserNotificationCenter.current().notificationSettings()
            return Self.authorization(settings.authorizationStatus)
        }

        /// Asks (the system's prompt shows once; later requests answer at once), then reads the status.
        public func requestAuthorization(provisional: Bool) async -> NotificationAuthorization {
            var options: UNAuthorizationOptions = [.alert, .sound, .badge]
            if provisional { options.insert(.provisional) }
            _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: options)
            return await authorization()
        }

        /// The SDK's name for iOS's status.
        static func authorization(_ status: UNAuthorizationStatus) -> NotificationAuthorization {
            switch status {
            case .notDetermined: return .notDetermined
            case .denied: return .denied
            case .authorized: return .authorized
            case .provisional: return .provisional
            case .ephemeral: return .ephemeral
            @unknown default: return NotificationAuthorization(rawValue: "unknown_\(status.rawValue)")
            }
        }
    }
#endif
