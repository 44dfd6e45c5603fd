import HeraldModel
import Testing

/// The payload builders against Punchh's example payloads, key for key.
@Suite("Push payloads: golden")
struct PayloadGoldenTests {
    static let seedCheckin = #"""
        {"aps":{"alert":{"title":"Points Earned","subtitle":"You've earned points!",
        "body":"You've got 12 points from your last visit at Brooklyn Location!"},"sound":"default","badge":10},
        "f":0,"i":23573125,"n":96763507,"p":12,"t":"POS_6118542_1487057215","u":6118542}
        """#
    static let seedSurvey = #"""
        {"aps":{"alert":{"title":"How was your visit","subtitle":"Share your experience!",
        "body":"Please share your experience from your last visit at Brooklyn Location."},"sound":"default","badge":10},
        "f":0,"n":96763507,"p":1,"u":6118542,"s":123456}
        """#
    static let seedRedemption = #"""
        {"aps":{"alert":{"title":"You've got a discount","subtitle":"You've got a discount","body":"You've got a discount"},
        "badge":2},"n":96763507,"rd":3,"u":6118542}
        """#

    @Test func checkinMatchesTheSeed() throws {
        let template = NotificationTemplate.default(for: .checkin)!.render([
            "points": "12", "location": "Brooklyn Location",
        ])
        let content = PushContent(
            notificationID: 96_763_507, title: template.title, subtitle: template.subtitle, body: template.body,
            sound: template.sound, badge: 10,
            extras: LoyaltyPayload.checkin(
                firstCheckin: false, checkinID: 23_573_125, points: 12, transactionID: "POS_6118542_1487057215",
                userID: 6_118_542
            ).objectValue!)
        let encoded = try JSON.parse(APNsPayload.encode(content))
        #expect(encoded == (try JSON.parse(Self.seedCheckin)))
        // Same keys, same order as the seed prints them.
        #expect(encoded.objectValue!.map(\.key) == ["aps", "f", "i", "n", "p", "t", "u"])
        #expect(APNsPayload.decode(encoded) == content)
    }

    @Test func surveyMatchesTheSeed() throws {
        let template = NotificationTemplate.default(for: .survey)!.render(["location": "Brooklyn Location"])
        let content = PushContent(
            notificationID: 96_763_507, title: template.title, subtitle: template.subtitle, body: template.body,
            sound: template.sound, badge: 10,
            extras: LoyaltyPayload.survey(firstCheckin: false, points: 1, userID: 6_118_542, userSurveyID: 123_456)
                .objectValue!)
        #expect(try JSON.parse(APNsPayload.encode(content)) == (try JSON.parse(Self.seedSurvey)))
    }

    @Test func redemptionMatchesTheSeed() throws {
        let template = NotificationTemplate.default(for: .redemption)!.render([:])
        let content = PushContent(
            notificationID: 96_763_507, title: template.title, subtitle: template.subtitle, body: template.body,
            sound: template.sound, badge: 2,
            extras: LoyaltyPayload.redemption(discount: Money(cents: 300), userID: 6_118_542).objectValue!)
        let encoded = try JSON.parse(APNsPayload.encode(content))
        #expect(encoded == (try JSON.parse(Self.seedRedemption)))
        #expect(encoded["aps"]?["sound"] == nil, "the seed's redemption push has no sound")
    }

    @Test func giftCardIsABackgroundPushWithOnlyGC() throws {
        let content = PushContent(
            notificationID: 1, extras: LoyaltyPayload.giftCard(id: 3122).objectValue!, isBackground: true)
        let encoded = try JSON.parse(APNsPayload.encode(content))
        #expect(encoded == ["aps": ["content-available": 1], "gc": 3122])
    }

    @Test func richMediaCarriesBrazeAttachment() throws {
        let content = PushContent(
            notificationID: 5, title: "New", body: "Look", sound: "default", badge: 1,
            media: MediaAttachment(url: "http://mysite.com/myimage.jpg", type: "jpg"))
        let encoded = try JSON.parse(APNsPayload.encode(content))
        #expect(encoded["aps"]?["mutable-content"] == 1)
        #expect(encoded["ab"] == ["att": ["url": "http://mysite.com/myimage.jpg", "type": "jpg"]])
        #expect(APNsPayload.decode(encoded)?.media == content.media)
    }

    @Test func fcmCarriesTheSameKeysAsStrings() throws {
        let content = PushContent(
            notificationID: 96_763_507, title: "Points Earned", subtitle: "You've earned points!", body: "12 points",
            sound: "default",
            badge: 10,
            media: MediaAttachment(url: "https://cdn.example.com/a.png", type: "png"),
            extras: LoyaltyPayload.checkin(
                firstCheckin: true, checkinID: 23_573_125, points: 12, transactionID: "POS_6118542_1487057215",
                userID: 6_118_542
            ).objectValue!)
        let message = try JSON.parse(FCMPayload.encode(token: "token-1", content: content))["message"]!
        #expect(
            message["notification"] == [
                "title": "Points Earned", "body": "12 points", "image": "https://cdn.example.com/a.png",
            ])
        let data = try #require(message["data"]?.objectValue)
        #expect(data.allSatisfy { $0.value.stringValue != nil })
        let strings = Dictionary(uniqueKeysWithValues: data.map { ($0.key, $0.value.stringValue!) })
        #expect(strings["f"] == "1")
        #expect(strings["i"] == "23573125")
        #expect(strings["n"] == "96763507")
        #expect(strings["p"] == "12")
        #expect(strings["t"] == "POS_6118542_1487057215")
        #expect(strings["u"] == "6118542")
        #expect(strings["badge"] == "10")
        // Rich media's `ab` as the JSON text of its APNs value (the same keys, as strings).
        #expect(
            try JSON.parse(strings["ab"] ?? "") == ["att": ["url": "https://cdn.example.com/a.png", "type": "png"]])
        #expect(message["android"]?["priority"] == "high")
        #expect(data.allSatisfy { !FCMPayload.isReserved($0.key) })
        #expect(["from", "message_type", "google", "googleplay", "gcm_x", "gcm.n"].allSatisfy(FCMPayload.isReserved))
        #expect(!FCMPayload.isReserved("gc") && !FCMPayload.isReserved("go"), "the seed's own keys are not")
        let decoded = FCMPayload.decode(data: strings, title: "Points Earned", body: "12 points")
        #expect(decoded.notificationID == 96_763_507)
        #expect(decoded.extra("t") == "POS_6118542_1487057215")
        #expect(decoded.extra("p") == 12)
        #expect(decoded.media == content.media)

        let silent = try JSON.parse(
            FCMPayload.encode(
                token: "t", content: PushContent(notificationID: 9, extras: [("gc", 3122)], isBackground: true)))
        #expect(silent["message"]?["notification"] == nil)
        #expect(silent["message"]?["data"]?["gc"] == "3122")
        #expect(silent["message"]?["android"]?["priority"] == "normal")
    }

    /// FCM request bodies, byte for byte: the key order, what is left out, the escapes. (Captured from the
    /// encoding this writer replaced, which built a tree of values first.)
    @Test func fcmBodiesAreByteExact() {
        let cases: [(content: PushContent, collapseKey: String?, body: String)] = [
            (
                PushContent(
                    notificationID: 96_763_507, title: "Flash \"sale\"", subtitle: "Today only",
                    body: "Half price – até 6pm\n", sound: "default", badge: 2,
                    media: MediaAttachment(url: "https://cdn.example.com/a/b.png", type: "png"),
                    extras: [("u", 7), ("t", "POS/1"), ("from", "x"), ("o", ["k": [1, 2]])]),
                "menu-of-the-day",
                #"{"message":{"token":"tok:APA91b_1","notification":{"title":"Flash \"sale\"","body":"Half price – até 6pm\n","image":"https://cdn.example.com/a/b.png"},"data":{"ab":"{\"att\":{\"url\":\"https://cdn.example.com/a/b.png\",\"type\":\"png\"}}","badge":"2","n":"96763507","o":"{\"k\":[1,2]}","subtitle":"Today only","t":"POS/1","u":"7"},"android":{"priority":"high","collapse_key":"menu-of-the-day","notification":{"sound":"default","notification_count":2}}}}"#
            ),
            (
                PushContent(notificationID: 9, extras: [("gc", 3122)], isBackground: true), nil,
                #"{"message":{"token":"tok:APA91b_1","data":{"content_available":"1","gc":"3122"},"android":{"priority":"normal"}}}"#
            ),
            (
                PushContent(
                    notificationID: 10, sound: "chime.caf",
                    media: MediaAttachment(url: "https://cdn.example.com/v.mp4", type: "mp4")),
                nil,
                #"{"message":{"token":"tok:APA91b_1","data":{"ab":"{\"att\":{\"url\":\"https://cdn.example.com/v.mp4\",\"type\":\"mp4\"}}","n":"10"},"android":{"priority":"high","notification":{"sound":"chime.caf","notification_count":0}}}}"#
            ),
            (
                PushContent(notificationID: 11, title: "Only a title"), "c",
                #"{"message":{"token":"tok:APA91b_1","notification":{"title":"Only a title"},"data":{"n":"11"},"android":{"priority":"high","collapse_key":"c"}}}"#
            ),
        ]
        for (content, collapseKey, body) in cases {
            let encoded = FCMPayload.encode(token: "tok:APA91b_1", content: content, collapseKey: collapseKey)
            #expect(String(decoding: encoded, as: UTF8.self) == body)
        }
    }
}
