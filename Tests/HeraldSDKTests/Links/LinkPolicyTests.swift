import HeraldModel
import Testing

@testable import HeraldSDK

/// Which calls to action open, and the click reported.
@Suite struct LinkPolicyTests {
    @Test(arguments: [
        "https://example.com/order", "http://example.com", "myapp://offers/12", "mailto:hi@example.com",
        "tel:+15551234", "itms-apps://apps.apple.com/app/id123", "ITMS-APPS://x", "HTTPS://EXAMPLE.COM",
    ])
    func allowed(link: String) {
        guard case .allowed = LinkPolicy().evaluate(link) else {
            Issue.record("refused \(link)")
            return
        }
    }

    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "\u{0}javascript:alert(1)",
        "java\tscript:alert(1)", "java\nscript:alert(1)", "jav\r\nascript:x", "file:///etc/passwd", "FILE:///x",
        "data:text/html,<script>", "intent://scan/#Intent;scheme=zxing;end", "vbscript:x",
        "itms-services://?action=download-manifest&url=https://x", "itms://x", "itms-beta://x", "itms-appss://x",
        "", "   ", "/relative/path", "example.com", "1http://x", "ht tp://x", "://x",
    ])
    func refused(link: String) {
        guard case .refused = LinkPolicy().evaluate(link) else {
            Issue.record("allowed \(link.debugDescription)")
            return
        }
    }

    @Test func theCleanedLinkIsOpened() {
        #expect(LinkPolicy().evaluate("  https://exa\tmple.com/a\n ") == .allowed("https://example.com/a"))
    }

    @Test func openCtaReportsTheClickOnlyForAllowedLinks() async throws {
        let harness = Harness()
        let client = await harness.start()
        #expect(await client.openCta(testMessage()) == .opened("https://example.com/order"))
        #expect(harness.eventTypes == ["notification.cta_clicked"])
        let evil = testMessage("m-2", cta: CallToAction(label: "Win", url: "javascript:steal()"))
        guard case .refused = await client.openCta(evil) else {
            Issue.record("opened javascript:")
            return
        }
        #expect(harness.opener.opened.current == ["https://example.com/order"])
        #expect(harness.eventTypes == ["notification.cta_clicked"])
        #expect(harness.diagnostics.codes.contains(.linkRefused))
        #expect(await client.openCta(testMessage("m-3", cta: nil)) == .noCallToAction)
    }

    @Test func nothingToOpenItIsAFailureButTheClickCounts() async throws {
        let harness = Harness()
        let client = HeraldClient(
            configuration: testConfiguration(),
            environment: HeraldEnvironment(
                transport: harness.transport, storage: harness.storage, clock: harness.clock.wallClock,
                scheduler: harness.scheduler, random: seededRandom(), urlOpener: RecordingOpener(answer: false)))
        await client.start()
        #expect(await client.openCta(testMessage()) == .failed("https://example.com/order"))
        #expect(client.pendingEvents.map(\.type) == [.notificationCTAClicked])
    }
}
