import HeraldModel
import Testing

@testable import HeraldSDK

/// The screen records each step of a notification's life as the user goes through it.
@Suite struct NotificationScreenTests {
    @Test func displayedOnceDismissedOnce() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(for: testMessage())
        screen.didAppear()
        screen.didAppear()
        screen.close()
        screen.close()
        screen.didAppear()
        #expect(harness.eventTypes == ["notification.displayed", "notification.dismissed"])
        #expect(screen.isClosed)
    }

    @Test func mediaEventsFollowThePlayer() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(
            for: testMessage(media: MessageMedia(type: .video, url: "https://cdn.example.com/v.mp4")))
        #expect(screen.playback?.state == .idle)
        screen.didAppear()
        #expect(harness.eventTypes == ["notification.displayed"], "nothing plays on its own")
        screen.mediaProgress(position: 0, duration: 20)
        screen.seek(to: 3)
        screen.play()
        screen.pause()
        screen.play()
        screen.mediaProgress(position: 19.5, duration: 20)
        screen.mediaDidFinish()
        #expect(harness.eventTypes == ["notification.displayed", "media.viewed", "media.completed"])
        #expect(harness.events.current[1].data == ["position_seconds": 3])
        screen.close()
        #expect(screen.playback?.isPlaying == false)
        #expect(NotificationScreenTests.imageScreenHasNoPlayer(client))
    }

    static func imageScreenHasNoPlayer(_ client: HeraldClient) -> Bool {
        client.screen(for: testMessage(media: MessageMedia(type: .image, url: "https://cdn.example.com/a.png")))
            .playback
            == nil
    }

    @Test func aSurveyRecordsStartedAndSubmitted() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage("s-1", questions: SurveyWizardTests.questions)
        harness.api.store(message)
        let screen = client.screen(for: message)
        screen.didAppear()
        #expect(screen.next()?.isMoved == false)
        screen.answer(3)
        screen.next()
        screen.next()
        let submitted = screen.next()
        guard case .submitted = submitted else {
            Issue.record("expected a submission, got \(String(describing: submitted))")
            return
        }
        #expect(screen.wizard?.step == .thankYou)
        #expect(
            harness.eventTypes == ["notification.displayed", "notification.survey_started", "survey.submitted"])
        #expect(harness.events.current[2].data == ["answers": [["question_id": "stars", "value": 3]]])
        // The server's validator takes it.
        await harness.flush()
        #expect(harness.api.eventTypes.contains("survey.submitted"))
        #expect(harness.api.eventResults.allSatisfy { $0["status"] == "accepted" })
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
        #expect(
            harness.eventTypes == ["notification.displayed", "notification.cta_clicked"], "no dismissed after acting")
        #expect(harness.events.current[1].data == ["url": "https://example.com/order"])
    }

    @Test func changesAreAnnounced() async throws {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(
            for: testMessage(media: MessageMedia(type: .audio, url: "https://cdn.example.com/a.mp3")))
        let changes = LockedValue(0)
        screen.onChange { changes.update { $0 += 1 } }
        screen.didAppear()
        screen.play()
        screen.close()
        #expect(changes.current == 3)
    }
}

extension SurveyWizard.Advance {
    var isMoved: Bool { self == .moved }
}
