import HeraldModel
import Testing

@testable import HeraldSDK

/// The app's and its scenes' notifications, as UIKit posts them for a UIKit, a scene-based and a SwiftUI app: the
/// app comes to the front once however many say so, and goes to the background with its last scene.
@Suite struct LifecycleTests {
    @Test func anAppWithoutScenesComesToTheFrontAndGoesBack() {
        var tracker = LifecycleTracker()
        #expect(tracker.handle(.willEnterForeground(.app)) == .cameToFront)
        #expect(tracker.handle(.becameActive(.app)) == nil, "the same coming to the front")
        #expect(tracker.handle(.enteredBackground(.app)) == .wentToBackground)
        #expect(tracker.handle(.enteredBackground(.app)) == nil)
        #expect(tracker.handle(.becameActive(.app)) == .cameToFront)
    }

    @Test func aSceneBasedAppIsInTheBackgroundOnlyWithItsLastScene() {
        var tracker = LifecycleTracker()
        // A SwiftUI or scene-based app: each scene posts, and UIApplication posts too.
        #expect(tracker.handle(.willEnterForeground(.scene("A"))) == .cameToFront)
        #expect(tracker.handle(.becameActive(.scene("A"))) == nil)
        #expect(tracker.handle(.becameActive(.app)) == nil)
        #expect(tracker.handle(.becameActive(.scene("B"))) == nil, "a second window")
        #expect(tracker.handle(.enteredBackground(.scene("A"))) == nil, "B is still in front")
        #expect(tracker.isInFront)
        #expect(tracker.handle(.enteredBackground(.scene("B"))) == .wentToBackground)
        #expect(tracker.handle(.enteredBackground(.app)) == nil)
        #expect(tracker.handle(.becameActive(.scene("B"))) == .cameToFront)
    }

    @Test func comingToTheFrontOpensPullsAndSendsOnceWhateverPostsIt() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        harness.api.queueForPull(testMessage("missed"))
        // What a SwiftUI app's launch posts, and the app forwarding applicationDidBecomeActive as well.
        await client.lifecycle(.willEnterForeground(.scene("main")))
        await client.lifecycle(.becameActive(.scene("main")))
        await client.lifecycle(.becameActive(.app))
        await client.appDidBecomeActive()
        #expect(harness.eventTypes.filter { $0 == "app.opened" }.count == 1)
        #expect(harness.presenter.shownIDs == ["missed"], "pulled and shown on the card: the app is in front")
        #expect(harness.transport.lines.filter { $0 == "POST /api/v1/notifications/pull" }.count == 1)

        // In the background, a geofence's message is posted as a system notification.
        await client.lifecycle(.enteredBackground(.scene("main")))
        _ = await client.arrive(testMessage("visit"), via: .geofence(locationID: nil))
        #expect(harness.presenter.postedIDs == ["visit"])
        await client.lifecycle(.becameActive(.scene("main")))
        #expect(harness.eventTypes.filter { $0 == "app.opened" }.count == 2)
    }
}
