import HeraldModel
import Testing

/// Media kinds and the push attachment (`ab.att`) a campaign push derives from them.
@Suite struct MessageMediaTests {
    @Test(arguments: [
        ("image", "https://cdn.example.com/a/burger.PNG?v=2#x", "png"),
        ("image", "https://cdn.example.com/a/burger", "jpg"),
        ("image", "https://cdn.example.com/a/burger.webp", "jpg"),
        ("image", "https://cdn.example.com/anim.gif", "gif"),
        ("image", "https://cdn.example.com/", "jpg"),
        ("image", "https://cdn.example.com", "jpg"),
        ("image", "https://cdn.example.com/.hidden", "jpg"),
        ("audio", "https://cdn.example.com/jingle.m4a", "m4a"),
        ("audio", "https://cdn.example.com/jingle.ogg", "mp3"),
        ("video", "https://cdn.example.com/ad.mpg", "mpg"),
        ("video", "https://cdn.example.com/ad.mov", "mp4"),
    ])
    func attachmentTypeFollowsTheURLWhenTheKindAcceptsIt(kind: String, url: String, type: String) {
        let media = MessageMedia(type: MessageMediaType(rawValue: kind), url: url)
        #expect(media.attachment == MediaAttachment(url: url, type: type))
    }

    @Test func onlyImageVideoAndAudioAreAttached() {
        for kind in MessageMediaType.allKnown {
            let media = MessageMedia(type: kind, url: "https://cdn.example.com/f.jpg")
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
