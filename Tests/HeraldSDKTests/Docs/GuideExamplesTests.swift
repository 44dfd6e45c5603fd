import Foundation
import HeraldModel
import HeraldSDK
import Testing

// The code of docs/sdk.md, compiled. Apple-only examples are compiled where UIKit is.

#if canImport(UIKit) && canImport(UserNotifications) && canImport(CoreLocation)
    import UIKit
    import UserNotifications

    final class AppDelegate: UIResponder, UIApplicationDelegate, UNUserNotificationCenterDelegate {
        func application(
            _ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
        ) -> Bool {
            UNUserNotificationCenter.current().delegate = self
            let configuration = HeraldConfiguration(
                apiKey: "live_…", baseURL: "https://push.example.com", device: DeviceInfo.current())
            Task {
                guard let environment = try? HeraldEnvironment.live(regionMonitor: CoreLocationRegionMonitor()) else {
                    return
                }
                await Herald.start(configuration, environment: environment)
                application.registerForRemoteNotifications()
            }
            return true
        }

        func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken token: Data) {
            Task { await Herald.setPushToken(token) }
        }

        func applicationDidBecomeActive(_ application: UIApplication) {
            Task { await Herald.appDidBecomeActive() }
        }

        func applicationDidEnterBackground(_ application: UIApplication) {
            Task { await Herald.appDidEnterBackground() }
        }

        func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
            -> UNNotificationPresentationOptions
        {
            await Herald.willPresent(notification) ?? [.banner, .sound]
        }

        func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse)
            async
        {
            if await Herald.didReceive(response) { return }
            // Not Herald's: handle your own notifications here.
        }
    }

    final class NotificationService: HeraldNotificationService {}
#endif

enum GuideExamples {
    static func notificationsAllowed(_ granted: Bool) async {
        await Herald.setPermissions(Permissions(notifications: granted, location: .whenInUse))
    }

    static func keep(_ message: HeraldMessage, in inbox: inout [String]) {
        inbox.append(message.jsonText)
    }

    static func showAgain(_ saved: String) async {
        guard let message = HeraldMessage(json: saved) else { return }  // nil if it isn't one
        await Herald.present(message)
    }

    static func followLink(of message: HeraldMessage) async {
        switch await Herald.openCta(message) {
        case .opened(let url): print("opened", url)
        case .refused(let reason): print("refused:", reason)
        case .failed, .noCallToAction: break
        }
    }

    static func listen() async {
        await Herald.setEventListener { event in
            print(event.type.rawValue, event.message?.id ?? "-", event.data?.encodedString ?? "")
        }
        await Herald.setNotificationListener { message in
            guard let screen = Herald.client?.screen(for: message) else { return }
            screen.didAppear()  // when your card is on screen: notification.displayed
            // screen.mediaDidPlay(at:), screen.check(_:), screen.submit(_:), await screen.openCTA(), screen.close()
        }
    }

    static func cardAppearance() -> CardAppearance {
        var appearance = CardAppearance()
        appearance.light.accent = "#d62300"
        appearance.dark.accent = "#ff8a65"
        appearance.cornerRadius = 20
        appearance.strings = ["next": "Suivant", "back": "Retour", "submit": "Envoyer", "close": "Fermer"]
        return appearance
    }

    static func tagAndTrack() async throws {
        Herald.track("cart.checkout", properties: [("total", 12.5), ("items", 3)])
        try await Herald.setSegments(["vip", "coffee-lovers"])  // at most 100, each 1–255 characters
    }

    static func signOut() async throws {
        try await Herald.logout()  // the install belongs to nobody: messages to the user stop
    }

    static func forgetMe() async throws {
        try await Herald.deleteMyData()  // the install, its token and events, on the server and on the device
    }

    static func approvalCode() async -> String? {
        await Herald.client?.testDevice()?.approvalCode
    }

    static func makeTestClient(transport: any HTTPTransport, opener: any URLOpener) -> HeraldClient {
        let device = DeviceInfo(
            appVersion: "1.0", osVersion: "17.4", deviceModel: "iPhone15,2", locale: "en_US", timezone: "UTC")
        let configuration = HeraldConfiguration(apiKey: "live_…", baseURL: "https://push.example.com", device: device)
        let environment = HeraldEnvironment(transport: transport, storage: MemoryStorage(), urlOpener: opener)
        return HeraldClient(configuration: configuration, environment: environment)
    }
}

/// The guide's code is this file's code, and the Linux-compilable examples work as the guide says.
@Suite(.serialized) struct GuideExamplesTests {
    static let guide = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/sdk.md")

    /// Lines without their indentation, blank lines dropped.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    @Test func everySwiftExampleOfTheGuideIsCompiledHere() throws {
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        let source = Self.normalized(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let blocks = guide.components(separatedBy: "```swift\n").dropFirst().map {
            String($0.components(separatedBy: "```").first ?? "")
        }
        #expect(blocks.count >= 9)
        for block in blocks {
            var lines = Self.normalized(block)
            // Functions are shown free; here they are static members of GuideExamples.
            if lines.hasPrefix("func ") {
                lines = "static " + lines.replacingOccurrences(of: "\nfunc ", with: "\nstatic func ")
            }
            #expect(source.contains(lines), "docs/sdk.md's example is not compiled here:\n\(block)")
        }
    }

    @Test func theInboxExampleShowsAKeptMessageAgain() async throws {
        let presenter = RecordingPresenter()
        let transport = ScriptedTransport { _ in .failure(TransportError(code: .offline)) }
        let environment = HeraldEnvironment(
            transport: transport, storage: MemoryStorage(), scheduler: ManualScheduler(clock: TestClock()),
            presenter: presenter, urlOpener: RecordingOpener())
        await Herald.start(testConfiguration(), environment: environment)
        defer { Herald.reset() }
        var inbox: [String] = []
        GuideExamples.keep(testMessage("kept"), in: &inbox)
        await GuideExamples.showAgain(inbox[0])
        await GuideExamples.showAgain("not a message")
        #expect(presenter.shownIDs == ["kept"])
        await GuideExamples.followLink(of: testMessage())
        await GuideExamples.listen()
        try? await GuideExamples.tagAndTrack()
        #expect(Herald.client?.pendingEvents.map(\.type).contains(.custom) == true)
    }

    @Test func theAppearanceExampleReachesTheCard() {
        let appearance = GuideExamples.cardAppearance().json["colors"]
        #expect(appearance?["light"] == ["accent": "#d62300"] && appearance?["dark"] == ["accent": "#ff8a65"])
    }

    @Test func theTestClientExampleWorks() async {
        let client = GuideExamples.makeTestClient(
            transport: ScriptedTransport { _ in .failure(TransportError(code: .offline)) }, opener: RecordingOpener())
        #expect(client.track("docs.example") != nil)
    }
}
