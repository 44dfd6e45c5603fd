#if canImport(UserNotifications) && canImport(UIKit) && os(iOS)
    import UIKit
    @preconcurrency import UserNotifications

    /// The app icon's badge: `UNUserNotificationCenter.setBadgeCount` from iOS 17, the application's badge number
    /// before (app-only API).
    @available(iOSApplicationExtension, unavailable)
    public struct UserNotificationsBadge: AppBadge {
        /// A badge.
        public init() {}

        /// Shows `count` (0 removes the badge).
        public func setCount(_ count: Int) async {
            if #available(iOS 17.0, *) {
                try? await UNUserNotificationCenter.current().setBadgeCount(count)
            } else {
                await MainActor.run { UIApplication.shared.applicationIconBadgeNumber = count }
            }
        }
    }
#endif
