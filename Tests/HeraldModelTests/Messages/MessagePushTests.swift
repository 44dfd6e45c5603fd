import HeraldModel
import Testing

/// A campaign's push: the APNs and FCM payloads the server writes, the 4 KB cut, and the SDK reading them back.
@Suite struct MessagePushTests {
    static let message = HeraldMessage(
        id: "m-1", campaignID: "c-1", headline: "Burger Tuesday", body: "Two for one",
        media: MessageMedia(type: .image, url: "https://cdn.example.com/b.png"),
        cta: CallToAction(label: "Order", url: "https://example.com/o"))

    @Test func apnsPayloadHasTheAlertTheAttachmentAndTheMessage() throws {
        let payload = try JSON.parse(MessagePush.apnsPayload(for: Self.message))
        #expect(payload.objectValue!.map(\.key) == ["aps", "ab", "herald"])
        #expect(
            payload["aps"] == [
                "alert": ["title": "Burger Tuesday", "body": "Two for one"], "sound": "default", "mutable-content": 1,
            ])
        #expect(payload["ab"] == ["att": ["url": "https://cdn.example.com/b.png", "type": "png"]])
        #expect(payload["herald"]?["id"] == "m-1")
        #expect(payload["herald"]?["message"] == Self.message.json)
        // The SDK reads it back: the message, and the attachment through the existing APNs decoder.
        let push = try #require(MessagePush(apnsPayload: payload))
        #expect(push == MessagePush(id: "m-1", message: Self.message))
        #expect(
            APNsPayload.decode(payload)?.media == MediaAttachment(url: "https://cdn.example.com/b.png", type: "png"))
        #expect(APNsPayload.decode(payload)?.extras.isEmpty == true, "herald is a reserved key, not an event extra")
    }

    @Test func noAttachmentNoMutableContent() throws {
        for media in [
            nil, MessageMedia(type: .youtube, url: "https://youtu.be/x"),
            MessageMedia(type: .file, url: "https://x.example/a.pdf"),
        ] {
            var message = Self.message
            message.media = media
            let payload = try JSON.parse(MessagePush.apnsPayload(for: message))
            #expect(payload["aps"]?["mutable-content"] == nil)
            #expect(payload["ab"] == nil)
            #expect(payload["herald"]?["message"]?["media"] == media?.json)
        }
    }

    @Test func videoAndAudioAreAttachedToo() throws {
        for (kind, type) in [(MessageMediaType.video, "mp4"), (.audio, "mp3")] {
            var message = Self.message
            message.media = MessageMedia(type: kind, url: "https://cdn.example.com/file." + type)
            let payload = try JSON.parse(MessagePush.apnsPayload(for: message))
            #expect(payload["aps"]?["mutable-content"] == 1)
            #expect(payload["ab"]?["att"]?["type"] == .string(type))
        }
    }

    /// A message whose payload is exactly `size` bytes with the message in it.
    static func message(payloadSize size: Int) -> HeraldMessage {
        var message = Self.message
        message.body = ""
        // The body appears twice (alert and message): each byte of body adds two; the campaign id, once.
        if (size - MessagePush.apnsPayload(for: message).count) % 2 != 0 { message.campaignID = "c-10" }
        let extra = size - MessagePush.apnsPayload(for: message).count
        precondition(extra >= 0 && extra % 2 == 0)
        message.body = String(repeating: "b", count: extra / 2)
        return message
    }

    @Test func theMessageIsLeftOutPast4096Bytes() throws {
        let fits = Self.message(payloadSize: 4096)
        let fitting = MessagePush.apnsPayload(for: fits)
        #expect(fitting.count == 4096)
        #expect(try JSON.parse(fitting)["herald"]?["message"] != nil)

        let over = Self.message(payloadSize: 4098)
        let cut = MessagePush.apnsPayload(for: over)
        #expect(cut.count <= 4096)
        let payload = try JSON.parse(cut)
        #expect(payload["herald"] == ["id": "m-1"])
        #expect(payload["aps"]?["alert"]?["body"] == .string(over.body), "the alert is whole")
        #expect(payload["ab"] != nil, "the attachment stays")
        let push = try #require(MessagePush(apnsPayload: payload))
        #expect(push.id == "m-1" && push.message == nil)
    }

    @Test func multiByteTextIsCountedInBytes() throws {
        var message = Self.message
        message.body = String(repeating: "🍔", count: 600)  // 2,400 bytes of body, twice
        let payload = MessagePush.apnsPayload(for: message)
        #expect(payload.count <= 4096)
        #expect(try JSON.parse(payload)["herald"]?["message"] == nil)
    }

    @Test func fcmCarriesTheSameObjectAsText() throws {
        let body = MessagePush.fcmMessage(token: "tok", for: Self.message)
        let message = try #require(body["message"])
        #expect(message["token"] == "tok")
        #expect(
            message["notification"] == [
                "title": "Burger Tuesday", "body": "Two for one", "image": "https://cdn.example.com/b.png",
            ])
        #expect(message["android"]?["priority"] == "high")
        let data = try #require(message["data"]?.objectValue)
        #expect(data.allSatisfy { $0.value.stringValue != nil }, "FCM data values are strings")
        let strings = Dictionary(uniqueKeysWithValues: data.map { ($0.key, $0.value.stringValue!) })
        #expect(try JSON.parse(strings["herald"]!) == MessagePush(id: "m-1", message: Self.message).json)
        #expect(try JSON.parse(strings["ab"]!) == ["att": ["url": "https://cdn.example.com/b.png", "type": "png"]])
        #expect(MessagePush(fcmData: strings) == MessagePush(id: "m-1", message: Self.message))
        #expect(FCMPayload.decode(data: strings).media?.type == "png", "ab.att read by the existing decoder")
    }

    @Test func fcmLeavesTheMessageOutWhenTooBig() throws {
        var message = Self.message
        message.body = String(repeating: "x", count: 2500)
        let data = MessagePush.fcmData(for: message)
        let herald = try JSON.parse(data.first { $0.key == "herald" }!.value)
        #expect(herald == ["id": "m-1"])
        let small = MessagePush.fcmData(for: Self.message)
        #expect(try JSON.parse(small.first { $0.key == "herald" }!.value)["message"] != nil)
    }

    @Test func aMessageThatIsntThePushesCountsAsLeftOut() {
        var other = Self.message
        other.id = "m-2"
        #expect(MessagePush(json: ["id": "m-1", "message": other.json]) == MessagePush(id: "m-1"))
        #expect(MessagePush(json: ["id": "m-1", "message": ["id": "m-1"]]) == MessagePush(id: "m-1"))
        #expect(MessagePush(json: ["id": 12]) == MessagePush(id: "12"))
        #expect(MessagePush(json: ["message": Self.message.json]) == nil)
        #expect(MessagePush(json: ["id": ""]) == nil)
        #expect(MessagePush(json: "m-1") == nil)
        #expect(MessagePush(apnsPayload: ["aps": ["alert": "hi"]]) == nil)
        #expect(MessagePush(fcmData: ["herald": "{not json"]) == nil)
        #expect(MessagePush(fcmData: ["n": "1"]) == nil)
    }
}
