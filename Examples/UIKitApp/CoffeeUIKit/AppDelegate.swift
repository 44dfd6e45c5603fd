import HeraldSDK
import UIKit

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        Herald.start(apiKey: "live_…", baseURL: "https://push.example.com")
        // Links of the app's own (a tap that launched the app comes after this).
        Herald.setLinkHandler { link in
            guard link.url.hasPrefix("coffee://") else { return false }  // the SDK opens web links
            await MainActor.run { print("open the app's screen for", link.url) }
            return true
        }
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken token: Data) {
        Task { await Herald.setPushToken(token) }
    }

    func application(
        _ application: UIApplication, configurationForConnecting session: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        UISceneConfiguration(name: "Default Configuration", sessionRole: session.role)
    }
}
