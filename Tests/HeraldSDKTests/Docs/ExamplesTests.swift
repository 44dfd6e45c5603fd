import Foundation
import Testing

/// The sample apps in `Examples/` (sources only: no machine here has UIKit) use only the guide's one-line setup and
/// names that exist.
@Suite struct ExamplesTests {
    static let apps = ["Examples/UIKitApp", "Examples/SwiftUIApp"]

    @Test(arguments: apps)
    func eachAppUsesOnlyTheOneLineSetup(app: String) throws {
        let source = try GuideExamplesTests.sources(app)
        #expect(source.components(separatedBy: "Herald.start(apiKey: ").count == 2, "one start, the one-line one")
        // Nothing the one-line setup does by itself is done by hand.
        for manual in [
            "HeraldEnvironment", "HeraldClient(", "HeraldConfiguration(", ".delegate =", "appDidBecomeActive",
            "appDidEnterBackground", "willPresent", "didReceive", "registerForRemoteNotifications",
            "locationDidUpdate", "setPermissions",
        ] {
            #expect(!source.contains(manual), "\(app) does by hand what Herald.start does: \(manual)")
        }
        #expect(source.contains("Herald.setPushToken") || source.contains("HeraldAppDelegate"), "the token")
        let extensionSource = try GuideExamplesTests.sources("\(app)/NotificationService")
        #expect(extensionSource.contains("import HeraldServiceExtension"))
        #expect(!extensionSource.contains("HeraldSDK"), "the extension links the extension-safe product")
    }

    @Test(arguments: apps)
    func everyNameAnAppUsesExists(app: String) throws {
        let root = GuideExamplesTests.root
        let index = try APINameIndex(
            sources: [
                "Sources/SDK/HeraldSDK", "Sources/SDK/HeraldPushContent", "Sources/SDK/HeraldServiceExtension",
                "Sources/Shared/HeraldModel", app,
            ].map { root.appendingPathComponent($0) })
        let source = try GuideExamplesTests.sources(app)
        let heraldLines = source.split(separator: "\n").filter { $0.contains("Herald") }
        #expect(!heraldLines.isEmpty)
        for line in heraldLines {
            let unknown = index.unknownNames(in: String(line)).filter { !$0.hasPrefix("UI") && !$0.hasPrefix("NS") }
            #expect(unknown.isEmpty, "\(app): \(unknown) in \(line)")
        }
    }
}
