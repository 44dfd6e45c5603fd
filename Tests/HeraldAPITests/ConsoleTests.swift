import Foundation
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin console's files, served by `herald serve` from the binary: what is embedded is what `console/` holds,
/// with its content type, a strict Content-Security-Policy and an ETag to revalidate against.
@Suite("Admin console")
struct ConsoleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // HeraldAPITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package

    private static let files = [
        ("index.html", "text/html; charset=utf-8"), ("console.css", "text/css; charset=utf-8"),
        ("console.js", "text/javascript; charset=utf-8"), ("identity-keys.js", "text/javascript; charset=utf-8"),
    ]

    @Test func servesEveryFileOfConsoleAsEmbedded() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let onDisk = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("console").path)
        #expect(Set(onDisk) == Set(Self.files.map(\.0)), "a file of console/ is not served (or not listed here)")
        for (name, type) in Self.files {
            let response = try client.request("GET", "/console/\(name)")
            #expect(response.status == 200, "\(name): \(response.status)")
            #expect(response.header("content-type") == type)
            // Out of date when console/ was edited without running scripts/generate-console.
            let file = try Data(contentsOf: Self.root.appendingPathComponent("console/\(name)"))
            let same = response.body == Array(file)
            #expect(same, "\(name) differs from console/\(name): run scripts/generate-console")
            let policy = try #require(response.header("content-security-policy"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("script-src 'self';"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(policy.contains("frame-src 'self';"), "the composer frames the card")
            #expect(response.header("x-frame-options") == "DENY")
            #expect(response.header("x-content-type-options") == "nosniff")
            #expect(response.header("cache-control") == "no-cache")
            let etag = try #require(response.header("etag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))

            let again = try client.request("GET", "/console/\(name)", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.header("etag") == etag)
            let stale = try client.request("GET", "/console/\(name)", headers: [("If-None-Match", "\"other\"")])
            #expect(stale.status == 200)
        }
    }

    /// The notification card under /console/card/: the very files the SDK embeds (`CardAssets`), framed by the
    /// composer only, playing media from here or https and YouTube from its privacy-enhanced host only.
    @Test func servesTheCardTheSDKShows() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("card").path)
        #expect(Set(onDisk) == ["card.html", "card.css", "card.js", "dom.js", "keyboard.js", "webview.json"])
        // webview.json is how a host sets up its web view (`CardAssets.webView`), not a file of the page.
        for name in onDisk where name != "webview.json" {
            let response = try client.request("GET", "/console/card/\(name)")
            #expect(response.status == 200, "\(name): \(response.status)")
            let file = try Data(contentsOf: Self.root.appendingPathComponent("card/\(name)"))
            #expect(response.body == Array(file), "\(name) differs from card/\(name): run scripts/generate-console")
            #expect(response.body == Array(try #require(CardAssets.files.first { $0.name == name }).text.utf8))
            let policy = try #require(response.header("content-security-policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self';"))
            #expect(policy.contains("media-src 'self' https: blob:;"))
            #expect(policy.contains("frame-src https://www.youtube-nocookie.com;"))
            #expect(policy.contains("frame-ancestors 'self'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(response.header("x-frame-options") == "SAMEORIGIN")
            #expect(response.header("x-content-type-options") == "nosniff")
            let etag = try #require(response.header("etag"))
            #expect(
                try client.request("GET", "/console/card/\(name)", headers: [("If-None-Match", etag)]).status == 304)
        }
        let missing = try client.request("GET", "/console/card/index.html")
        #expect(missing.status == 404)
        #expect(missing.isJSON)
    }

    @Test func theConsoleIsAtSlashConsoleWithOrWithoutTheSlash() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let index = try client.request("GET", "/console/index.html")
        for target in ["/console", "/console/"] {
            let response = try client.request("GET", target)
            #expect(response.status == 200, "\(target)")
            #expect(response.header("content-type") == "text/html; charset=utf-8")
            #expect(response.body == index.body)
        }
        let missing = try client.request("GET", "/console/secrets.txt")
        #expect(missing.status == 404)
        #expect(missing.isJSON)
    }

    /// No inline script or style anywhere: the policy forbids them, so one would be a console that silently breaks.
    @Test func thePagesHoldNoInlineCode() throws {
        let html = try String(contentsOf: Self.root.appendingPathComponent("console/index.html"), encoding: .utf8)
        #expect(!html.contains("<script>"))
        #expect(!html.contains("style="))
        #expect(!html.contains(" onclick="))
        let script = try String(contentsOf: Self.root.appendingPathComponent("console/console.js"), encoding: .utf8)
        #expect(!script.contains("innerHTML"), "build nodes with textContent: API text must never become markup")
        #expect(!script.contains("localStorage"), "the admin token stays in sessionStorage")
        #expect(script.contains("sessionStorage"))
        let card = try String(contentsOf: Self.root.appendingPathComponent("card/card.html"), encoding: .utf8)
        #expect(!card.contains("<script>") && !card.contains("style=") && !card.contains(" onclick="))
        let cardScript = try String(contentsOf: Self.root.appendingPathComponent("card/card.js"), encoding: .utf8)
        #expect(!cardScript.contains("innerHTML") && !cardScript.contains("insertAdjacentHTML"))
        #expect(
            !cardScript.contains("setAttribute(\"style\""),
            "styles through the CSSOM only (the policy allows no inline style)")
    }
}
