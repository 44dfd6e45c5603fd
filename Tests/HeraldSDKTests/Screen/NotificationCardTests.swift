import HeraldModel
import Testing

@testable import HeraldSDK

/// What the card shows for each kind of message.
@Suite struct NotificationCardTests {
    @Test func headlineBodyCTAAndRibbon() {
        let card = NotificationCard(testMessage(sandbox: true))
        #expect(card.headline == "Burger Tuesday" && card.body == "Two for one")
        #expect(card.ctaLabel == "Order" && card.ctaURL == "https://example.com/order")
        #expect(card.showsSandboxRibbon && card.showsCloseButton)
        #expect(card.media == nil)
        #expect(!NotificationCard(testMessage()).showsSandboxRibbon)
    }

    @Test func ctaLabelDefaultsToTheURL() {
        let card = NotificationCard(testMessage(cta: CallToAction(label: nil, url: "https://example.com/x")))
        #expect(card.ctaLabel == "https://example.com/x")
        #expect(
            NotificationCard(testMessage(cta: CallToAction(label: " ", url: "https://e.x"))).ctaLabel == "https://e.x")
        #expect(NotificationCard(testMessage(cta: nil)).ctaLabel == nil)
    }

    @Test(arguments: [
        (MessageMediaType.image, false, false), (.video, true, false), (.audio, true, false), (.youtube, true, false),
        (.application, false, true), (.text, false, true), (.file, false, true),
        (MessageMediaType(rawValue: "hologram"), false, true),
    ])
    func mediaKinds(kind: MessageMediaType, playable: Bool, external: Bool) {
        let card = NotificationCard(
            testMessage(media: MessageMedia(type: kind, url: "https://cdn.example.com/f", thumbnailURL: "https://t")))
        #expect(card.media?.kind == kind)
        #expect(card.media?.isPlayable == playable)
        #expect(card.media?.opensExternally == external)
        #expect(card.media?.thumbnailURL == "https://t")
    }

    @Test(arguments: [
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ?si=x", "dQw4w9WgXcQ"),
        ("https://m.youtube.com/watch?feature=share&v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/shorts/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("HTTPS://YOUTUBE.COM/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
    ])
    func youtubeLinksBecomeNoCookieEmbeds(url: String, id: String) {
        let card = NotificationCard(testMessage(media: MessageMedia(type: .youtube, url: url)))
        #expect(card.media?.embedURL == "https://www.youtube-nocookie.com/embed/\(id)")
    }

    @Test(arguments: [
        "https://evil.example/watch?v=dQw4w9WgXcQ", "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=short", "https://www.youtube.com/watch?v=dQw4w9WgXcQ%22",
        "javascript:alert(1)",
        "https://user@evil.example/watch?v=dQw4w9WgXcQ", "ftp://youtube.com/watch?v=dQw4w9WgXcQ",
    ])
    func otherLinksAreNotEmbedded(url: String) {
        #expect(NotificationCard(testMessage(media: MessageMedia(type: .youtube, url: url))).media?.embedURL == nil)
    }
}
