import HeraldModel
import Testing

@testable import HeraldSDK

/// The SDK's end of the card's bridge: what the card posts becomes the screen's events (each in the queue once,
/// with the message id), `validate` is answered by the shared validator, links pass the link policy.
@Suite struct CardBridgeTests {
    static let survey = testMessage(
        "s-42", media: MessageMedia(type: .audio, url: "https://cdn.example.com/jingle.mp3"),
        questions: NotificationScreenTests.questions)

    private func post(_ bridge: CardBridge, _ pairs: [(key: String, value: JSON)]) async -> CardBridge.Reply {
        await bridge.receive(JSON.object(pairs).encodedString)
    }

    private func event(_ type: String, _ more: [(key: String, value: JSON)] = [], id: String = "s-42")
        -> [(key: String, value: JSON)]
    {
        [("type", .string(type)), ("message_id", .string(id))] + more
    }

    @Test func readyIsAnsweredWithTheMessageAsTheDeviceAPIGivesItAndTheAppearance() async throws {
        let harness = Harness()
        let client = await harness.start()
        var appearance = CardAppearance()
        appearance.colorScheme = .dark
        appearance.dark.accent = "#ff8800"
        appearance.strings = ["next": "Suivant"]
        let bridge = CardBridge(screen: client.screen(for: Self.survey), appearance: appearance)
        let reply = await bridge.receive(#"{"type":"ready","version":1}"#)
        #expect(reply.messages == [bridge.showMessage] && !reply.closesCard)
        let show = try JSON.parse(bridge.showMessage)
        #expect(show["type"] == "show")
        #expect(show["message"] == Self.survey.json)
        #expect(HeraldMessage(json: try #require(show["message"])) == Self.survey)
        #expect(show["appearance"] == appearance.json)
        #expect(show["appearance"]?["colors"]?["dark"] == ["accent": "#ff8800"])
        #expect(show["appearance"]?["strings"] == ["next": "Suivant"])
        #expect(harness.eventTypes.isEmpty, "ready records nothing")
    }

    /// A card's whole life, with the repeats a card may post: each event is queued once, in order, with the id.
    @Test func eachEventLandsInTheEventQueueOnceWithTheMessageID() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.store(Self.survey)
        let bridge = CardBridge(screen: client.screen(for: Self.survey))
        let answers: JSON = [["question_id": "stars", "value": 5], ["question_id": "drink", "value": ["tea"]]]
        for posted in [
            [("type", "ready")], event("displayed"), event("survey_started"), event("displayed"),
            event("media_viewed", [("position_seconds", 2.5)]), event("media_viewed", [("position_seconds", 8)]),
            event("validate", [("request_id", "1"), ("answers", answers)]),
            event("survey_submitted", [("answers", answers)]), event("survey_submitted", [("answers", answers)]),
            event("media_completed"), event("media_completed"), event("survey_started"),
        ] as [[(key: String, value: JSON)]] {
            let reply = await post(bridge, posted)
            #expect(!reply.closesCard)
        }
        let reply = await post(bridge, event("cta_clicked", [("url", "https://example.com/order")]))
        #expect(reply.closesCard, "the call to action opened")
        _ = await post(bridge, event("dismissed"))
        let expected = [
            "notification.displayed", "notification.survey_started", "media.viewed", "survey.submitted",
            "media.completed", "notification.cta_clicked",
        ]
        #expect(harness.eventTypes == expected)
        let queued = client.pendingEvents
        #expect(queued.map(\.type.rawValue) == expected)
        #expect(queued.allSatisfy { $0.notificationID == "s-42" })
        #expect(Set(queued.map(\.id)).count == queued.count)
        #expect(queued[2].data == ["position_seconds": 2.5])
        #expect(queued[3].data == ["answers": answers])
        await harness.flush()
        #expect(harness.api.eventTypes == expected)
        #expect(harness.api.eventResults.allSatisfy { $0["status"] == "accepted" })
        #expect(client.pendingEvents.isEmpty)
    }

    @Test func validateIsAnsweredWithTheValidatorsProblemsAndItsRequestID() async throws {
        let harness = Harness()
        let client = await harness.start()
        let bridge = CardBridge(screen: client.screen(for: Self.survey))
        let validator = SurveyValidator(try #require(Self.survey.survey))
        let cases: [(id: JSON, answers: JSON)] = [
            ("7", [["question_id": "stars", "value": 9], ["question_id": "more", "value": "far too long"]]),
            (8, []), ("9", [["question_id": "stars", "value": 3]]),
        ]
        for (id, answers) in cases {
            let reply = await post(bridge, event("validate", [("request_id", id), ("answers", answers)]))
            let parsed = try JSON.parse(try #require(reply.messages.first))
            let read = try #require(DeviceEvent.surveyAnswers(inData: .object([("answers", answers)])))
            let problems = validator.validate(read).map { $0.json }
            let requestID = JSON.string(id.stringValue ?? "8")
            #expect(
                parsed == .object([("type", "validation"), ("request_id", requestID), ("problems", .array(problems))]))
        }
        let notAList: JSON = ["stars": 3]
        let broken = await post(bridge, event("validate", [("request_id", "10"), ("answers", notAList)]))
        let parsed = try JSON.parse(try #require(broken.messages.first))
        #expect(parsed["problems"]?.arrayValue?.first?["code"] == "not_an_object")
        #expect(harness.eventTypes.isEmpty, "checking records nothing")
    }

    @Test func answersTheValidatorRefusesAreNotSubmitted() async throws {
        let harness = Harness()
        let client = await harness.start()
        let bridge = CardBridge(screen: client.screen(for: Self.survey))
        _ = await post(bridge, event("survey_submitted", [("answers", [["question_id": "stars", "value": 0]])]))
        _ = await post(bridge, event("survey_submitted", [("answers", "nothing")]))
        #expect(harness.eventTypes.isEmpty)
    }

    @Test func theCardClosesOnDismissedAndOnAnOpenedCallToActionOnly() async throws {
        let harness = Harness()
        let client = await harness.start()
        let refused = testMessage("m-9", cta: CallToAction(label: "Go", url: "javascript:alert(1)"))
        let stays = CardBridge(screen: client.screen(for: refused))
        #expect(await post(stays, event("cta_clicked", id: "m-9")).closesCard == false)
        #expect(harness.opener.opened.current.isEmpty && harness.eventTypes.isEmpty)
        // The card's url is not what opens: the message's call to action is.
        let bridge = CardBridge(screen: client.screen(for: testMessage()))
        #expect(await post(bridge, event("cta_clicked", [("url", "https://evil.example")], id: "m-1")).closesCard)
        #expect(harness.opener.opened.current == ["https://example.com/order"])
        let closing = CardBridge(screen: client.screen(for: testMessage("m-3")))
        #expect(await post(closing, event("dismissed", id: "m-3")).closesCard)
        #expect(harness.eventTypes == ["notification.cta_clicked", "notification.dismissed"])
    }

    @Test func openURLPassesTheLinkPolicyAndRecordsNothing() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage(media: MessageMedia(type: .application, url: "https://a.example/app"))
        let bridge = CardBridge(screen: client.screen(for: message))
        _ = await post(bridge, event("open_url", [("url", "https://a.example/app")], id: "m-1"))
        _ = await post(bridge, event("open_url", [("url", "data:text/html,<b>x</b>")], id: "m-1"))
        #expect(harness.opener.opened.current == ["https://a.example/app"])
        #expect(harness.eventTypes.isEmpty)
    }

    @Test func whatIsNotForThisMessageOrNotUnderstoodIsIgnored() async throws {
        let harness = Harness()
        let client = await harness.start()
        let bridge = CardBridge(screen: client.screen(for: Self.survey))
        for text in [
            "", "not json", "[]", "{}", #"{"type":3}"#, #"{"type":"displayed"}"#,
            #"{"type":"displayed","message_id":"another"}"#, #"{"type":"dismissed","message_id":42}"#,
            #"{"type":"teleport","message_id":"s-42"}"#,
        ] {
            let reply = await bridge.receive(text)
            #expect(reply == CardBridge.Reply(), "\(text)")
        }
        #expect(harness.eventTypes.isEmpty)
    }

    @Test func cardMessagesAreReadAsTheProtocolSays() throws {
        let posted = try #require(
            CardMessage(
                text:
                    #"{"type":"validate","message_id":"7","request_id":12,"answers":[{"question_id":"q","value":[1]}]}"#
            ))
        #expect(posted.kind == .validate && posted.messageID == "7" && posted.requestID == "12")
        #expect(posted.answers?["q"] == [1])
        let viewed = try #require(
            CardMessage(text: #"{"type":"media_viewed","message_id":"7","position_seconds":1.5}"#))
        #expect(viewed.kind == .mediaViewed && viewed.positionSeconds == 1.5 && viewed.answers == nil)
        #expect(CardMessage(text: #"{"type":"open_url","url":"https://x"}"#)?.url == "https://x")
        #expect(CardMessage(text: #"{"type":""}"#) == nil)
        #expect(CardMessage(text: #"{"type":"validate","answers":{"q":1}}"#)?.answers == nil)
    }

    @Test func theAppearanceIsWhatTheCardReads() {
        var appearance = CardAppearance()
        #expect(appearance.json == ["color_scheme": "system", "colors": ["light": [:], "dark": [:]], "strings": [:]])
        appearance.light.background = "#fff"
        appearance.light.accentText = "white"
        appearance.dark.ribbonText = "black"
        appearance.cornerRadius = 8
        appearance.fontSize = 17
        appearance.headlineFontSize = 22
        appearance.fontFamily = "Avenir Next"
        appearance.direction = .rightToLeft
        appearance.language = "ar"
        appearance.strings = ["next": "التالي", "close": "إغلاق"]
        #expect(
            appearance.json == [
                "color_scheme": "system",
                "colors": ["light": ["background": "#fff", "accent_text": "white"], "dark": ["ribbon_text": "black"]],
                "corner_radius": 8, "font_size": 17, "headline_size": 22, "font_family": "Avenir Next",
                "direction": "rtl", "lang": "ar", "strings": ["close": "إغلاق", "next": "التالي"],
            ])
    }
}
