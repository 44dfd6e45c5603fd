import Foundation
import HeraldModel
import HeraldObservability
import HeraldSDK
import Testing

// The code of docs/sdk.md's `swift` examples, compiled here; its `swift ios` examples are the sample apps' (Examples/).

enum GuideExamples {
    static func askForNotifications() async {
        let allowed = await Herald.requestNotificationPermission()
        print("notifications allowed:", allowed)
    }

    static func deliverQuietlyFirst() async {
        await Herald.requestNotificationPermission(provisional: true)
    }

    static func askForLocation() async {
        let allowed = await Herald.requestLocationPermission()
        print("location:", allowed.rawValue)  // always, when_in_use or none
    }

    static func neverUseLocation() -> HeraldConfiguration.Options {
        var options = HeraldConfiguration.Options()
        options.locationAuthorization = .none
        return options
    }

    static func userLoggedIn(externalID: String, identityToken: String) async throws {
        try await Herald.identify(externalID: externalID, identityToken: identityToken)
    }

    static func userLoggedOut() async throws {
        try await Herald.logout()
    }

    static func handleOwnLinks() {
        Herald.setLinkHandler { link in
            guard link.url.hasPrefix("coffee://") else { return false }  // web links: the SDK opens them
            print("show", link.url, "for", link.message.id)
            return true
        }
    }

    static func followLink(of message: HeraldMessage) async {
        switch await Herald.openCta(message) {
        case .opened(let url): print("opened", url)
        case .refused(let reason): print("refused:", reason)
        case .failed, .noCallToAction: break
        }
    }

    static func inboxRead() async {
        await Herald.setBadgeCount(0)
    }

    static func keep(_ message: HeraldMessage, in inbox: inout [String]) {
        inbox.append(message.jsonText)
    }

    static func showAgain(_ saved: String) async {
        guard let message = HeraldMessage(json: saved) else { return }  // nil if it isn't one
        await Herald.present(message)
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

/// The guide's code is this file's code (the `swift ios` examples the sample apps'), the names it uses exist, and the
/// Linux-compilable examples work as the guide says.
@Suite(.serialized) struct GuideExamplesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let guide = root.appendingPathComponent("docs/sdk.md")

    /// Lines without their indentation, blank lines dropped.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    /// The guide's fenced blocks whose info string is `info`.
    static func blocks(_ info: String) throws -> [String] {
        let guide = try String(contentsOf: guide, encoding: .utf8)
        return guide.components(separatedBy: "```\(info)\n").dropFirst().map {
            String($0.components(separatedBy: "```").first ?? "")
        }
    }

    /// Every Swift file under `directory`, concatenated.
    static func sources(_ directory: String) throws -> String {
        let base = root.appendingPathComponent(directory)
        let files =
            FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path } ?? []
        return try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    @Test func everySwiftExampleOfTheGuideIsCompiledHere() throws {
        let source = Self.normalized(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let blocks = try Self.blocks("swift")
        #expect(blocks.count >= 10)
        for block in blocks {
            var lines = Self.normalized(block)
            // Functions are shown free; here they are static members of GuideExamples.
            if lines.hasPrefix("func ") {
                lines = "static " + lines.replacingOccurrences(of: "\nfunc ", with: "\nstatic func ")
            }
            #expect(source.contains(lines), "docs/sdk.md's example is not compiled here:\n\(block)")
        }
    }

    @Test func everyAppleOnlyExampleIsInASampleApp() throws {
        let samples = Self.normalized(try Self.sources("Examples"))
        let blocks = try Self.blocks("swift ios")
        #expect(blocks.count >= 5)
        for block in blocks {
            #expect(samples.contains(Self.normalized(block)), "not in Examples/:\n\(block)")
        }
    }

    @Test func thePackageLineNamesTheVersionHeraldReports() throws {
        let manifest = try #require(try Self.blocks("swift package").first)
        #expect(manifest.contains(#"from: "\#(BuildInfo.version)""#), "\(manifest)")
        #expect(HeraldConfiguration.currentSDKVersion == BuildInfo.version)
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        #expect(guide.contains("from `\(BuildInfo.version)`") && guide.contains("The tag `\(BuildInfo.version)`"))
    }

    @Test func everyAPINameTheGuideUsesExists() throws {
        let index = try APINameIndex(sources: [
            Self.root.appendingPathComponent("Sources/SDK/HeraldSDK"),
            Self.root.appendingPathComponent("Sources/SDK/HeraldPushContent"),
            Self.root.appendingPathComponent("Sources/SDK/HeraldServiceExtension"),
            Self.root.appendingPathComponent("Sources/Shared/HeraldModel"),
            Self.root.appendingPathComponent("Examples"),
            URL(fileURLWithPath: #filePath),
        ])
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        var code: [String] = []
        for (index, part) in guide.components(separatedBy: "```").enumerated() {
            if index % 2 == 1 {
                // A fenced block: Swift (not the manifest, not shell or text).
                if part.hasPrefix("swift\n") || part.hasPrefix("swift ios\n") { code.append(part) }
            } else {
                code.append(
                    contentsOf: part.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(
                        \.element
                    ).filter(APINameIndex.mayNameAPI))
            }
        }
        #expect(code.count > 100)
        for text in code {
            let unknown = index.unknownNames(in: text)
            #expect(unknown.isEmpty, "docs/sdk.md names what doesn't exist: \(unknown) in `\(text)`")
        }
    }

    @Test func theNameCheckCatchesWhatEarlierDocsGotWrong() throws {
        let index = try APINameIndex(sources: [Self.root.appendingPathComponent("Sources/SDK/HeraldSDK")])
        for wrong in [
            "HeraldEnvironment.live(storage:)", "environment: .live(presenter: presenter)",
            "HeraldClient.handleNotificationResponse", "Herald.logIn()", "Herald.identify(userID: id)",
            "NotificationCardController",
        ] {
            #expect(!index.unknownNames(in: wrong).isEmpty, "\(wrong) passed")
        }
        #expect(index.unknownNames(in: "HeraldEnvironment.live(diagnostics: log)").isEmpty)
        #expect(index.unknownNames(in: "Herald.identify(externalID:identityToken:)").isEmpty)
    }

    @Test func everyAPINameTheSDKsDocCommentsUseExists() throws {
        let directories = [
            "Sources/SDK/HeraldSDK", "Sources/SDK/HeraldPushContent", "Sources/SDK/HeraldServiceExtension",
        ]
        let index = try APINameIndex(
            sources: directories.map { Self.root.appendingPathComponent($0) } + [
                Self.root.appendingPathComponent("Sources/Shared/HeraldModel")
            ])
        for directory in directories {
            let files =
                FileManager.default.enumerator(
                    at: Self.root.appendingPathComponent(directory), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files {
                let comments = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }.joined(separator: "\n")
                let spans = comments.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }
                for span in spans.map(\.element) where !span.contains("\n") && APINameIndex.mayNameAPI(span) {
                    let unknown = index.unknownNames(in: span)
                    #expect(
                        unknown.isEmpty, "\(file.lastPathComponent) names what doesn't exist: \(unknown) in `\(span)`")
                }
            }
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
        GuideExamples.handleOwnLinks()
        let deep = testMessage("deep", cta: CallToAction(label: "Menu", url: "coffee://menu"))
        #expect(await Herald.openCta(deep) == .opened("coffee://menu"))
        #expect(GuideExamples.neverUseLocation().locationAuthorization == .none)
        // Without the live environment there is nothing to ask.
        await GuideExamples.askForNotifications()
        await GuideExamples.askForLocation()
        await #expect(throws: HeraldError.self) {
            try await GuideExamples.userLoggedIn(externalID: "a", identityToken: "")
        }
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
