import HeraldModel
import Testing

@testable import HeraldSDK

/// A push arriving while the app is in front is never shown as nothing: on the card, or, when the card can't show,
/// by the system's banner; its `aps.badge` (the server's unread count) is applied either way.
@Suite struct ForegroundPresentationTests {
    static func payload(_ message: HeraldMessage, badge: Int? = nil, includingMessage: Bool = true) throws -> JSON {
        var payload = try ArrivalTests.apnsPayload(message, includingMessage: includingMessage)
        if let badge, case .object(var pairs) = payload, let index = pairs.firstIndex(where: { $0.key == "aps" }),
            case .object(var aps) = pairs[index].value
        {
            aps.append(("badge", .int(Int64(badge))))
            pairs[index].value = .object(aps)
            payload = .object(pairs)
        }
        return payload
    }

    @Test func aPushInFrontIsShownOnTheCardEvenWhenTheAppNeverSaidItWasInFront() async throws {
        // A SwiftUI app before the lifecycle was observed: the SDK was never told the app is in front.
        let harness = Harness()
        let client = await harness.start(foreground: false)
        let presentation = await client.willPresent(try Self.payload(testMessage("m-1"), badge: 3))
        #expect(presentation == ForegroundPresentation(banner: false, sound: false, badge: true))
        #expect(harness.presenter.shownIDs == ["m-1"])
        #expect(harness.presenter.postedIDs.isEmpty, "no local notification for a push in front")
    }

    @Test func withoutAWindowForTheCardThePushShowsAsTheSystemsBanner() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.presenter.hasWindow.update { $0 = false }
        let presentation = await client.willPresent(try Self.payload(testMessage("m-1")))
        #expect(presentation == ForegroundPresentation(banner: true, sound: true, badge: false))
        #expect(harness.presenter.shownIDs.isEmpty && harness.presenter.postedIDs.isEmpty)
        #expect(harness.eventTypes == ["notification.received"])
    }

    @Test func aNotificationTheSDKPostedIsShownAsPostedNeverDroppedAsADuplicate() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        let message = testMessage("visit")
        _ = await client.arrive(message, via: .geofence(locationID: nil))
        #expect(harness.presenter.postedIDs == ["visit"])
        // iOS asks how to show it (the app came to the front meanwhile): as posted.
        let posted = try #require(PushPayload.json(fromUserInfo: PushPayload.userInfo(for: message)))
        #expect(await client.willPresent(posted) == .posted)
        // Tapped, it opens the card.
        #expect(await client.handleResponse(posted, action: .open))
        #expect(harness.presenter.shownIDs == ["visit"])
    }

    @Test func aPushSeenBeforeKeepsOnlyItsBadgeAndAMissingMessageShowsTheBanner() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.queueForPull(testMessage("m-1"))
        try await client.pull()
        let again = await client.willPresent(try Self.payload(testMessage("m-1"), badge: 1))
        #expect(again == ForegroundPresentation(banner: false, sound: false, badge: true), "shown once, on the card")
        harness.api.set(\.offline, true)
        let missing = await client.willPresent(try Self.payload(testMessage("m-2"), includingMessage: false))
        #expect(missing == ForegroundPresentation(banner: true, sound: true, badge: false), "can't fetch: the banner")
        #expect(await client.willPresent(["aps": ["alert": "not ours"]]) == nil)
    }

    @Test func theAppSetsTheBadge() async {
        let harness = Harness()
        let client = await harness.start()
        await client.setBadgeCount(4)
        await client.setBadgeCount(-1)
        #expect(harness.badge.counts.current == [4, 0])
    }
}
