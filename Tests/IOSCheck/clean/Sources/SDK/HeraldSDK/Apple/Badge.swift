import UIKit
import UserNotifications

/// iOS 17 API behind `#available`, app-only API in an extension-unavailable declaration.
@available(iOSApplicationExtension, unavailable)
enum Badge {
    static func set(_ count: Int) async {
        if #available(iOS 17.0, *) {
            try? await UNUserNotificationCenter.current().setBadgeCount(count)
        } else {
            await MainActor.run { UIApplication.shared.applicationIconBadgeNumber = count }
        }
    }
}

/// Not app-only: no annotation needed.
struct Greeting {
    // UIApplication in a comment is not a use.
    let text = "UIApplication in a string is not a use either"
}
