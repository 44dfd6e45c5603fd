import Foundation
import HeraldCrypto
import HeraldModel
import Testing

/// The notification card embedded once (`scripts/generate-console`): the files are card/'s, and the SDK's one-page
/// document carries its style sheet and scripts inline, allowed by a policy naming exactly their hashes.
@Suite struct CardAssetsTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Card
        .deletingLastPathComponent()  // HeraldModelTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package

    private func text(_ name: String) throws -> String {
        try #require(CardAssets.files.first { $0.name == name }?.text)
    }

    @Test func theEmbeddedFilesAreCardsFiles() throws {
        let folder = Self.root.appendingPathComponent("card")
        // Every page file (webview.json is the host's settings, embedded as `webView`).
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "webview.json" }
        #expect(Set(onDisk) == Set(CardAssets.files.map(\.name)))
        for file in CardAssets.files {
            let disk = try String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.text == disk, "\(file.name) differs from card/\(file.name): run scripts/generate-console")
        }
        #expect(
            CardAssets.files.map(\.contentType) == [
                "text/css; charset=utf-8", "text/html; charset=utf-8", "text/javascript; charset=utf-8",
                "text/javascript; charset=utf-8", "text/javascript; charset=utf-8",
            ])
    }

    /// How a host's web view is set up is card/webview.json's (the SDK's `CardViewController` and the card's WebKit
    /// test host both read it): no media waits for the user's action, or YouTube's player would need a second tap.
    @Test func theWebViewSettingsAreWebviewJSONs() throws {
        let url = Self.root.appendingPathComponent("card").appendingPathComponent("webview.json")
        let settings = try JSON.parse(String(contentsOf: url, encoding: .utf8))
        #expect(settings["message_handler"]?.stringValue == CardAssets.webView.messageHandler)
        #expect(settings["inline_media_playback"] == .bool(CardAssets.webView.inlineMediaPlayback))
        #expect(
            settings["media_playback_requires_user_action"]
                == .bool(CardAssets.webView.mediaPlaybackRequiresUserAction))
        #expect(CardAssets.webView == ("herald", true, false))
    }

    @Test func theDocumentInlinesTheStyleAndScriptAllowedByTheirHashes() throws {
        let document = CardAssets.document
        let css = try text("card.css")
        let dom = try text("dom.js")
        let js = try text("card.js")
        let keyboard = try text("keyboard.js")
        #expect(document.components(separatedBy: "<style>" + css + "</style>").count == 2)
        let domAt = try #require(document.range(of: "<script>" + dom + "</script>")).lowerBound
        let cardAt = try #require(document.range(of: "<script>" + js + "</script>")).lowerBound
        let keyboardAt = try #require(document.range(of: "<script>" + keyboard + "</script>")).lowerBound
        #expect(domAt < cardAt && cardAt < keyboardAt, "in card.html's order: the helper first")
        #expect(!document.contains("href=\"card.css\"") && !document.contains(" src="))
        let hash = { (text: String) in Data(SHA256.hash(Array(text.utf8))).base64EncodedString() }
        let policy =
            "default-src 'none'; script-src 'sha256-\(hash(dom))' 'sha256-\(hash(js))' 'sha256-\(hash(keyboard))'; "
            + "style-src 'sha256-\(hash(css))'; "
            + "img-src https: data:; media-src https:; frame-src https://www.youtube-nocookie.com; base-uri 'none'; "
            + "form-action 'none'"
        let meta = "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">"
        let metaAt = try #require(document.range(of: meta)).lowerBound
        let styleAt = try #require(document.range(of: "<style>")).lowerBound
        #expect(metaAt < styleAt, "the policy comes before the code it allows")
        #expect(!document.contains("unsafe-inline"))
    }
}
