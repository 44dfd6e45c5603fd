import UIKit

/// App-only API in the product a service extension links.
enum Badge {
    static func clear() { UIApplication.shared.applicationIconBadgeNumber = 0 }
}
