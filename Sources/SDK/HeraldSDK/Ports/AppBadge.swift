/// The number on the app's icon (`UNUserNotificationCenter.setBadgeCount` on iOS 17, the application's badge number
/// before).
public protocol AppBadge: Sendable {
    /// Shows `count` on the icon (0 removes the badge).
    func setCount(_ count: Int) async
}
