import HeraldSDK
import SwiftUI

@main
struct CoffeeApp: App {
    @UIApplicationDelegateAdaptor(HeraldAppDelegate.self) private var appDelegate

    init() {
        Herald.start(apiKey: "live_…", baseURL: "https://push.example.com")
    }

    var body: some Scene {
        WindowGroup {
            ContentView()
        }
    }
}
