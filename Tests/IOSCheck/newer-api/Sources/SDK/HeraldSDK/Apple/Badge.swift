import UserNotifications

/// iOS 17 API called unguarded in an SDK for iOS 16.
enum Badge {
    static func set(_ count: Int) async {
        try? await UNUserNotificationCenter.current().setBadgeCount(count)
    }
}
