import HeraldModel
import Testing

@testable import HeraldSDK

/// A card asked for while another presentation or dismissal runs (or before the app has a window) is presented once
/// it can be, and counts as shown only then; one that never can be is shown another way, never as nothing.
@Suite struct ScreenPresentationTests {
    /// A stage answering the states it is given, one per ask (the last one after that); presenting is refused while
    /// `refusals` lasts. Presenting makes the screen appear, as the card does once on view.
    final class ScriptedStage: PresentationStage, @unchecked Sendable {
        private let script: LockedValue<(states: [PresentationStageState], refusals: Int, asks: Int, presented: Int)>

        init(_ states: [PresentationStageState], refusals: Int = 0) {
            script = LockedValue((states, refusals, 0, 0))
        }

        func state() async -> PresentationStageState {
            script.update { script in
                script.asks += 1
                return script.states.count > 1 ? script.states.removeFirst() : script.states[0]
            }
        }

        func present(_ screen: NotificationScreen) async -> Bool {
            let taken = script.update { script in
                guard script.refusals == 0 else {
                    script.refusals -= 1
                    return false
                }
                script.presented += 1
                return true
            }
            if taken { screen.didAppear() }
            return taken
        }

        var asks: Int { script.current.asks }
        var presented: Int { script.current.presented }
    }

    static let quick = ScreenPresentation(patience: .milliseconds(200), interval: .milliseconds(1))

    @Test func aCardAskedForDuringATransitionIsPresentedWhenItEndsAndCountsAsDisplayedOnlyThen() async {
        let harness = Harness()
        let client = await harness.start()
        let screen = client.screen(for: testMessage("m-1"))
        let stage = ScriptedStage([.busy, .busy, .absent, .ready])
        #expect(await Self.quick.present(screen, on: stage))
        #expect(stage.presented == 1)
        #expect(stage.asks == 4, "asked again until the transition was over")
        #expect(harness.eventTypes == ["notification.displayed"])
    }

    @Test func aPresentationUIKitRefusesIsTriedAgain() async {
        let harness = Harness()
        let client = await harness.start()
        let stage = ScriptedStage([.ready], refusals: 2)
        #expect(await Self.quick.present(client.screen(for: testMessage("m-1")), on: stage))
        #expect(stage.presented == 1 && stage.asks == 3)
        #expect(harness.eventTypes == ["notification.displayed"])
    }

    @Test func aCardThatNeverCanBePresentedIsNotCountedShown() async {
        let harness = Harness()
        let client = await harness.start()
        let stage = ScriptedStage([.busy])
        let presentation = ScreenPresentation(patience: .milliseconds(20), interval: .milliseconds(5))
        #expect(presentation.attempts == 5)
        #expect(await !presentation.present(client.screen(for: testMessage("m-1")), on: stage))
        #expect(stage.presented == 0 && stage.asks == 5)
        #expect(harness.eventTypes.isEmpty)
    }

    @Test func aPushInFrontWhoseCardCannotBePresentedShowsTheSystemsBanner() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.presenter.presentable.update { $0 = false }
        let payload = try ForegroundPresentationTests.payload(testMessage("m-1"))
        let presentation = await client.willPresent(payload)
        #expect(presentation == ForegroundPresentation(banner: true, sound: true, badge: false))
        #expect(harness.presenter.shownIDs.isEmpty && harness.presenter.postedIDs.isEmpty)
        #expect(harness.eventTypes == ["notification.received"])
    }

    @Test func aPulledMessageWhoseCardCannotBePresentedIsPostedAsASystemNotification() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.presenter.presentable.update { $0 = false }
        #expect(await client.arrive(testMessage("m-2"), via: .pull) == .postedSystemNotification)
        #expect(harness.presenter.postedIDs == ["m-2"])
        #expect(!harness.eventTypes.contains("notification.displayed"))
        // Once it can be presented again, the next message is on the card.
        harness.presenter.presentable.update { $0 = true }
        #expect(await client.arrive(testMessage("m-3"), via: .pull) == .shownOnScreen)
        #expect(harness.presenter.shownIDs == ["m-3"])
    }
}
