import HeraldModel
import Testing

/// Media kinds and the push attachment (`ab.att`) a campaign push derives from them.
@Suite struct MessageMediaTests {
    @Test(arguments: [
        ("image", "https://cdn.example.com/a/burger.PNG?v=2#x", "png"),
        ("image", "https://cdn.example.com/anim.gif", "gif"),
        ("audio", "https://cdn.example.com/jingle.m4a", "m4a"),
        ("video", "https://cdn.example.com/ad.mpg", "mpg"),
    ])
    func attachmentTypeFollowsTheURLWhenTheKindAcceptsIt(kind: String, url: String, type: String) {
        let media = MessageMedia(type: MessageMediaType(rawValue: kind), url: url)
        #expect(media.attachment == MediaAttachment(url: url, type: type))
    }

    /// Its real type is never guessed: an image at `….mp4`, audio in WebM or a QuickTime video would be sent as
    /// something they are not, and the service extension would fail to attach them.
    @Test(arguments: [
        ("image", "https://cdn.example.com/a/burger"), ("image", "https://cdn.example.com/a/burger.webp"),
        ("image", "https://cdn.example.com/clip.mp4"), ("image", "https://cdn.example.com/"),
        ("image", "https://cdn.example.com"), ("image", "https://cdn.example.com/.hidden"),
        ("audio", "https://cdn.example.com/jingle.ogg"), ("audio", "https://cdn.example.com/jingle.webm"),
        ("video", "https://cdn.example.com/ad.mov"),
    ])
    func anURLWithoutASuffixTheKindAcceptsHasNoAttachment(kind: String, url: String) {
        #expect(MessageMedia(type: MessageMediaType(rawValue: kind), url: url).attachment == nil)
    }

    @Test func youTubeLinksNameTheirVideo() {
        for url in [
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10", "https://youtu.be/dQw4w9WgXcQ",
            "https://youtube.com/shorts/dQw4w9WgXcQ", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
            "http://m.youtube.com/watch?v=dQw4w9WgXcQ",
        ] {
            #expect(MessageMedia(type: .youtube, url: url).youTubeVideoID == "dQw4w9WgXcQ", "\(url)")
        }
        for url in [
            "https://vimeo.com/123456", "https://www.youtube.com/watch?v=short", "https://evil.example/youtu.be/x",
            "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ", "javascript:alert(1)",
            "https://www.youtube.com/channel/UCxyz",
        ] {
            #expect(MessageMedia(type: .youtube, url: url).youTubeVideoID == nil, "\(url)")
        }
        #expect(MessageMedia(type: .video, url: "https://youtu.be/dQw4w9WgXcQ").youTubeVideoID == nil)
    }

    @Test func onlyImageVideoAndAudioAreAttached() {
        for kind in MessageMediaType.allKnown {
            let media = MessageMedia(
                type: kind, url: "https://cdn.example.com/f." + (kind.attachmentTypes.first ?? "jpg"))
            #expect((media.attachment != nil) == [.image, .video, .audio].contains(kind), "\(kind)")
            #expect(kind.isAttachable == (media.attachment != nil))
        }
    }

    @Test func kindsFromAttachmentTypes() {
        #expect(MessageMediaType(attachmentType: "JPG") == .image)
        #expect(MessageMediaType(attachmentType: "gif") == .image)
        #expect(MessageMediaType(attachmentType: "aiff") == .audio)
        #expect(MessageMediaType(attachmentType: "avi") == .video)
        #expect(MessageMediaType(attachmentType: "exe") == nil)
        #expect(MessageMediaType(attachmentType: "") == nil)
    }

    @Test func jsonRoundTrips() {
        let media = MessageMedia(type: .youtube, url: "https://youtu.be/abc", thumbnailURL: "https://i.example/t.jpg")
        #expect(
            media.json == [
                "type": "youtube", "url": "https://youtu.be/abc", "thumbnail_url": "https://i.example/t.jpg",
            ])
        #expect(MessageMedia(json: media.json) == media)
        #expect(MessageMedia(json: ["type": "image", "url": "u", "thumbnail_url": ""])?.thumbnailURL == nil)
    }
}
