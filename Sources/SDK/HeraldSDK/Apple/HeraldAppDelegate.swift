#if canImport(UIKit) && os(iOS)
    import Foundation
    import UIKit

    /// An app delegate that hands the device token to Herald, for apps without one of their own — SwiftUI apps:
    ///
    /// ```swift
    /// @UIApplicationDelegateAdaptor(HeraldAppDelegate.self) private var appDelegate
    /// ```
    ///
    /// iOS gives the token only to an app delegate; Herald swizzles nothing. Subclass it to add your own delegate
    /// methods (call `super` in these two).
    @available(iOSApplicationExtension, unavailable)
    open class HeraldAppDelegate: NSObject, UIApplicationDelegate {
        /// Sends the token to Herald.
        open func application(
            _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
        ) {
            Task { await Herald.setPushToken(deviceToken) }
        }

        /// Nothing to send: no token (the simulator before Xcode 14, or no Push Notifications capability).
        open func application(
            _ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error
        ) {}
    }
#endif
