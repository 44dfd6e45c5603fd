import HeraldModel
import Testing

@testable import HeraldSDK

/// The screen records each step of a notification's life once, as the card (or an app's own UI) reports it.
@Suite struct NotificationScreenTests {
    static let questions = [
        SurveyQuestion(id: "stars", text: "Rate us", type: .rating, required: true),
        SurveyQuestion(
            id: "drink", text: "Drink?", type: .multipleChoice,
            choices: [SurveyChoice(id: "tea", text: "Tea"), SurveyChoice(id: "coffee", text: "Coffee")], maxSelected: 1),
        SurveyQuestion(id: "more", text: "Anything else?", type: .openEnded, maxLength: 10),
    ]

    @Test func displayedOnceDismissedOnce() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(for: testMessage())
        screen.didAppear()
        screen.didAppear()
        screen.surveyDidStart()
        screen.close()
        screen.close()
        screen.didAppear()
        #expect(harness.eventTypes == ["notification.displayed", "notification.dismissed"])
        #expect(screen.isClosed)
    }

    @Test func mediaIsViewedOnceFromWhereItStartedAndCompletedOnceAfter() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(
            for: testMessage(media: MessageMedia(type: .video, url: "https://cdn.example.com/v.mp4")))
        screen.didAppear()
        screen.mediaDidComplete()
        #expect(harness.eventTypes == ["notification.displayed"], "nothing completes before it played")
        screen.mediaDidPlay(at: 3)
        screen.mediaDidPlay(at: 9)
        screen.mediaDidComplete()
        screen.mediaDidComplete()
        #expect(harness.eventTypes == ["notification.displayed", "media.viewed", "media.completed"])
        #expect(harness.events.current[1].data == ["position_seconds": 3])

        let odd = client.screen(for: testMessage("m-2", media: MessageMedia(type: .audio, url: "https://a/x.mp3")))
        odd.mediaDidPlay(at: .nan)
        #expect(harness.events.current.last?.data == ["position_seconds": 0])
        client.screen(for: testMessage("m-3")).mediaDidPlay(at: 0)
        #expect(harness.events.current.count == 4, "a message without media has nothing to view")
    }

    @Test func aSurveyStartsOnceAndIsSubmittedOnceWhenTheValidatorTakesIt() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage("s-1", questions: Self.questions)
        harness.api.store(message)
        let screen = client.screen(for: message)
        screen.didAppear()
        screen.surveyDidStart()
        screen.surveyDidStart()

        var answers = SurveyAnswers()
        answers["stars"] = 9
        answers["drink"] = ["tea", "coffee"]
        let validator = SurveyValidator(try #require(message.survey))
        #expect(screen.check(answers) == validator.validate(answers))
        #expect(screen.check(answers).map(\.code) == [.outOfRange, .tooManyChoices])
        #expect(screen.submit(answers) == validator.validate(answers))
        #expect(harness.eventTypes == ["notification.displayed", "notification.survey_started"], "refused: nothing")

        answers["stars"] = 4
        answers["drink"] = ["coffee"]
        answers["more"] = "  great  "
        #expect(screen.submit(answers).isEmpty)
        #expect(screen.submit(answers).isEmpty)
        #expect(
            harness.eventTypes == ["notification.displayed", "notification.survey_started", "survey.submitted"])
        #expect(
            harness.events.current[2].data == [
                "answers": [
                    ["question_id": "stars", "value": 4], ["question_id": "drink", "value": ["coffee"]],
                    ["question_id": "more", "value": "great"],
                ]
            ], "as Herald stores them: in question order, trimmed")
        // The server's validator takes it.
        await harness.flush()
        #expect(harness.api.eventTypes.contains("survey.submitted"))
        #expect(harness.api.eventResults.allSatisfy { $0["status"] == "accepted" })
    }

    @Test func aPlainMessageHasNoSurveyToStartOrSubmit() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(for: testMessage())
        screen.surveyDidStart()
        var answers = SurveyAnswers()
        answers["stars"] = 4
        #expect(screen.check(answers).map(\.code) == [.unknownQuestion])
        #expect(screen.submit(SurveyAnswers()).isEmpty)
        #expect(harness.eventTypes.isEmpty)
    }

    @Test func aGeofenceArrivalCarriesItsLocation() async throws {
        let harness = Harness()
        let client = await harness.start()
        client.screen(for: testMessage(), source: .geofence(locationID: "loc-9")).didAppear()
        client.screen(for: testMessage("m-2"), source: .geofence(locationID: nil)).didAppear()
        #expect(harness.events.current.map(\.data) == [["location_id": "loc-9"], nil])
    }

    @Test func theCallToActionOpensRecordsAndCloses() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(for: testMessage())
        screen.didAppear()
        #expect(await screen.openCTA() == .opened("https://example.com/order"))
        #expect(harness.opener.opened.current == ["https://example.com/order"])
        #expect(screen.isClosed)
        screen.close()
        #expect(await screen.openCTA() == .failed("https://example.com/order"), "closed: nothing more")
        #expect(
            harness.eventTypes == ["notification.displayed", "notification.cta_clicked"], "no dismissed after acting")
        #expect(harness.events.current[1].data == ["url": "https://example.com/order"])
    }

    @Test func otherLinksPassThePolicyAndRecordNothing() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(
            for: testMessage(media: MessageMedia(type: .file, url: "https://a.example/menu.pdf")))
        #expect(await screen.openLink("https://a.example/menu.pdf") == .opened("https://a.example/menu.pdf"))
        guard case .refused = await screen.openLink(" javascript:alert(1)") else {
            Issue.record("javascript: opened")
            return
        }
        #expect(harness.opener.opened.current == ["https://a.example/menu.pdf"])
        #expect(harness.diagnostics.codes.filter { $0 == .linkRefused }.count == 1)
        #expect(harness.eventTypes.isEmpty)
        #expect(!screen.isClosed)
    }
}
