import HeraldModel
import Testing

/// The device API's message: reading what the server sends, refusing what isn't a message, and `.json` round trips.
@Suite struct HeraldMessageTests {
    static let full: JSON = [
        "id": "m-1", "campaign_id": "c-9", "type": "message", "headline": "Burger Tuesday", "body": "Two for one",
        "sandbox": false,
        "media": [
            "type": "video", "url": "https://cdn.example.com/v.mp4", "thumbnail_url": "https://cdn.example.com/v.jpg",
        ],
        "cta": ["label": "Order now", "url": "https://example.com/order"], "questions": [],
    ]

    static let survey: JSON = [
        "id": "s-1", "campaign_id": "c-2", "type": "survey", "headline": "Your visit", "body": "Tell us",
        "sandbox": true,
        "questions": [
            ["id": "stars", "text": "Rate us", "type": "rating", "required": true],
            [
                "id": "drink", "text": "Drink?", "type": "single_choice", "required": false,
                "choices": [["id": "tea", "text": "Tea"], ["id": "coffee", "text": "Coffee"]],
            ],
        ],
    ]

    @Test func readsEveryField() throws {
        let message = try #require(HeraldMessage(json: Self.full))
        #expect(message.id == "m-1")
        #expect(message.campaignID == "c-9")
        #expect(message.type == .message && !message.isSurvey)
        #expect(message.headline == "Burger Tuesday")
        #expect(message.body == "Two for one")
        #expect(!message.isSandbox)
        #expect(
            message.media
                == MessageMedia(
                    type: .video, url: "https://cdn.example.com/v.mp4",
                    thumbnailURL: "https://cdn.example.com/v.jpg"))
        #expect(message.cta == CallToAction(label: "Order now", url: "https://example.com/order"))
        #expect(message.questions.isEmpty)
        #expect(message.survey == nil)
    }

    @Test func readsASurveysQuestionsWithTheSharedRules() throws {
        let message = try #require(HeraldMessage(json: Self.survey))
        #expect(message.isSurvey && message.isSandbox)
        #expect(message.questions.map(\.id) == ["stars", "drink"])
        #expect(message.questions[0].effectiveScale == 1...5)
        let survey = try #require(message.survey)
        #expect(survey.title == "Your visit")
        var answers = SurveyAnswers()
        #expect(SurveyValidator(survey).validate(answers).map(\.code) == [.required])
        answers["stars"] = 4
        #expect(SurveyValidator(survey).validate(answers).isEmpty)
    }

    @Test func jsonRoundTripsAsText() throws {
        for source in [Self.full, Self.survey] {
            let message = try #require(HeraldMessage(json: source))
            #expect(HeraldMessage(json: message.json) == message)
            #expect(HeraldMessage(json: message.jsonText) == message)
            #expect(HeraldMessage(json: Array(message.jsonText.utf8)) == message)
            // What the server wrote is what comes back.
            #expect(message.json == source)
        }
    }

    @Test func keepsUnknownKeysInOrder() throws {
        var source = Self.full.objectValue!
        source.append(("priority", "high"))
        source.append(("extra", ["nested": [1, 2]]))
        let message = try #require(HeraldMessage(json: .object(source)))
        #expect(message.otherFields.map(\.key) == ["priority", "extra"])
        #expect(message.json["extra"] == ["nested": [1, 2]])
        #expect(message.json.objectValue!.suffix(2).map(\.key) == ["priority", "extra"])
        #expect(HeraldMessage(json: message.json) == message)
    }

    @Test func writesOptionalPartsOnlyWhenSet() {
        let message = HeraldMessage(id: "1", headline: "Hi", body: "There")
        #expect(message.json.objectValue!.map(\.key) == ["id", "type", "headline", "body", "sandbox", "questions"])
        #expect(message.json["questions"] == [])
        #expect(HeraldMessage(json: message.json) == message)
    }

    @Test func readsNumericIdsAsTheirDigits() throws {
        let message = try #require(
            HeraldMessage(json: ["id": 42, "campaign_id": 7, "type": "message", "headline": "h", "body": "b"]))
        #expect(message.id == "42" && message.campaignID == "7")
        #expect(!message.isSandbox, "sandbox defaults to false")
    }

    @Test func unknownTypesAndMediaKindsAreKept() throws {
        var source = Self.full.objectValue!
        source = source.map { pair in
            switch pair.key {
            case "type": return (pair.key, "carousel")
            case "media": return (pair.key, ["type": "hologram", "url": "https://x.example/h"])
            default: return pair
            }
        }
        let message = try #require(HeraldMessage(json: .object(source)))
        #expect(message.type.rawValue == "carousel" && !message.isSurvey)
        #expect(message.media?.type.isKnown == false)
        #expect(message.media?.attachment == nil)
    }

    /// What isn't a message: each change to a good message that must make `init?(json:)` answer nil.
    static let refused: [(String, JSON?)] = [
        ("id", nil), ("id", ""), ("id", -1), ("id", 1.5), ("id", true),
        ("id", .string(String(repeating: "x", count: 256))),
        ("id", "a\u{0}b"), ("type", nil), ("type", ""), ("type", 3), ("headline", nil), ("headline", 1),
        ("body", nil), ("body", .null), ("campaign_id", ["x"]), ("campaign_id", ""), ("sandbox", "yes"),
        ("sandbox", 1), ("media", "https://x"), ("media", ["url": "https://x"]), ("media", ["type": "image"]),
        ("media", ["type": "image", "url": ""]), ("media", ["type": "image", "url": "u", "thumbnail_url": 3]),
        ("cta", "https://x"), ("cta", ["label": "Go"]), ("cta", ["label": 3, "url": "https://x"]),
        ("questions", "none"), ("questions", [["id": "q", "text": "Q", "type": "teleport"]]),
        ("questions", [["id": "q", "text": "Q", "type": "rating"], ["id": "q", "text": "R", "type": "rating"]]),
        ("questions", [["id": "q", "text": "", "type": "rating"]]),
    ]

    @Test(arguments: 0..<refused.count) func refusesWhatIsntAMessage(_ index: Int) {
        let (key, value) = Self.refused[index]
        var pairs = Self.full.objectValue!.filter { $0.key != key }
        if let value { pairs.append((key, value)) }
        #expect(HeraldMessage(json: .object(pairs)) == nil, "\(key): \(value?.encodedString ?? "absent")")
    }

    @Test func refusesTextThatIsntAMessage() {
        #expect(HeraldMessage(json: "") == nil)
        #expect(HeraldMessage(json: "[]") == nil)
        #expect(HeraldMessage(json: "{\"id\":\"1\"") == nil)
        #expect(HeraldMessage(json: JSON.array([])) == nil)
        #expect(HeraldMessage(json: "{\"id\":\"1\",\"type\":\"message\",\"headline\":\"h\",\"body\":\"b\"}") != nil)
    }

    @Test func nullOptionalPartsReadAsAbsent() throws {
        let message = try #require(
            HeraldMessage(json: [
                "id": "1", "type": "message", "headline": "h", "body": "b", "campaign_id": nil, "sandbox": nil,
                "media": nil, "cta": nil, "questions": nil,
            ]))
        #expect(message.campaignID == nil && message.media == nil && message.cta == nil && message.questions.isEmpty)
    }

    @Test func ctaLabelDefaultsToTheURL() {
        #expect(CallToAction(label: nil, url: "https://x.example").displayLabel == "https://x.example")
        #expect(CallToAction(label: "  ", url: "https://x.example").displayLabel == "https://x.example")
        #expect(CallToAction(label: "Go", url: "https://x.example").displayLabel == "Go")
        #expect(CallToAction(json: ["url": "https://x.example", "label": nil])?.label == nil)
        #expect(CallToAction(json: ["url": "https://x.example"])?.json == ["url": "https://x.example"])
    }
}
