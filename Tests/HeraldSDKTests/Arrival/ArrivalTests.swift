import HeraldModel
import Testing

@testable import HeraldSDK

/// Push, pull and geofence through one path: shown once per install, fetched by id when the push left the message
/// out, and the events each arrival records.
@Suite struct ArrivalTests {
    static func apnsPayload(_ message: HeraldMessage, includingMessage: Bool = true) throws -> JSON {
        let bytes = MessagePush.apnsPayload(for: message, maximumSize: includingMessage ? 4096 : 0)
        return try JSON.parse(bytes)
    }

    @Test func aPushInFrontIsShownOnTheScreenAndRecorded() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage()
        let handling = await client.handlePush(try Self.apnsPayload(message), tapped: false)
        #expect(handling == .handled(.shownOnScreen))
        #expect(harness.presenter.shownIDs == ["m-1"])
        #expect(harness.eventTypes == ["notification.received", "notification.displayed"])
        #expect(harness.presenter.screens.first?.message == message)
    }

    @Test func theSameMessageByPushAndByPullIsShownOnce() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage()
        harness.api.queueForPull(message)
        _ = await client.handlePush(try Self.apnsPayload(message), tapped: false)
        let pulled = try await client.pull()
        #expect(pulled.map(\.id) == ["m-1"], "pull answers what the server handed")
        #expect(harness.presenter.shownIDs == ["m-1"], "but it is shown once")
        #expect(harness.eventTypes.filter { $0 == "notification.received" }.count == 1)
        // And the other way round, across a relaunch: pulled first, then its push.
        let second = testMessage("m-2")
        harness.api.queueForPull(second)
        try await client.pull()
        let relaunched = await harness.relaunch()
        #expect(await relaunched.handlePush(try Self.apnsPayload(second), tapped: false) == .handled(.duplicate))
        #expect(harness.presenter.shownIDs == ["m-1", "m-2"])
    }

    @Test func aPullRemovesTheBannerIOSAlreadyDrew() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.queueForPull(testMessage("m-7"))
        try await client.pull()
        #expect(harness.presenter.removedIDs == ["m-7"])
    }

    @Test func aPushWithoutItsMessageIsFetchedById() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage("m/with space")
        harness.api.store(message)
        let payload = try Self.apnsPayload(message, includingMessage: false)
        #expect(payload["herald"] == ["id": "m/with space"])
        #expect(await client.handlePush(payload, tapped: false) == .handled(.shownOnScreen))
        #expect(
            harness.transport.requests.current.last?.url
                == "https://push.example.com/api/v1/notifications/m%2Fwith%20space")
        #expect(harness.presenter.screens.first?.message == message)
        // Seen already: a second push of the same id doesn't even fetch.
        let requests = harness.transport.requests.current.count
        #expect(await client.handlePush(payload, tapped: false) == .handled(.duplicate))
        #expect(harness.transport.requests.current.count == requests)
    }

    @Test func aFetchThatFailsIsReported() async throws {
        let harness = Harness()
        let client = await harness.start()
        let payload = try Self.apnsPayload(testMessage("gone"), includingMessage: false)
        guard case .unavailable(let error) = await client.handlePush(payload, tapped: false) else {
            Issue.record("expected unavailable")
            return
        }
        #expect(error.status == 404)
        #expect(harness.diagnostics.codes.contains(.messageUnavailable))
        #expect(harness.presenter.shownIDs.isEmpty)
    }

    @Test func aTappedPushOpensTheScreenAndRecordsOpened() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        let message = testMessage()
        #expect(await client.handlePush(try Self.apnsPayload(message), tapped: true) == .handled(.shownOnScreen))
        #expect(harness.eventTypes == ["notification.received", "notification.opened", "notification.displayed"])
        // Tapping a message already seen (by pull) opens it again without a second `received`.
        let pulled = testMessage("m-2")
        harness.api.queueForPull(pulled)
        await client.setForeground(true)
        try await client.pull()
        _ = await client.handlePush(try Self.apnsPayload(pulled), tapped: true)
        #expect(harness.eventTypes.filter { $0 == "notification.received" }.count == 2)
        #expect(harness.eventTypes.filter { $0 == "notification.opened" }.count == 2)
        #expect(harness.presenter.shownIDs == ["m-1", "m-2", "m-2"])
    }

    @Test func inTheBackgroundItBecomesASystemNotification() async throws {
        let harness = Harness()
        let client = await harness.start(foreground: false)
        harness.api.queueForPull(testMessage())
        try await client.pull()
        #expect(harness.presenter.postedIDs == ["m-1"])
        #expect(harness.presenter.shownIDs.isEmpty)
        #expect(harness.eventTypes == ["notification.received"])
        // Its tap comes back with the same `herald` object a push carries.
        let userInfo = PushPayload.userInfo(for: testMessage())
        #expect(await Harness.handle(userInfo: userInfo, client: client, tapped: true) == .handled(.shownOnScreen))
        #expect(harness.eventTypes == ["notification.received", "notification.opened", "notification.displayed"])
    }

    @Test func appsDrawingTheirOwnGetTheMessage() async throws {
        let harness = Harness()
        let client = await harness.start()
        let received = LockedValue<[HeraldMessage]>([])
        await client.setNotificationListener { message in received.update { $0.append(message) } }
        harness.api.queueForPull(testMessage())
        try await client.pull()
        #expect(received.current.map(\.id) == ["m-1"])
        #expect(harness.presenter.shownIDs.isEmpty)
        #expect(harness.eventTypes == ["notification.received"], "the app reports displayed itself")
        // With the headless screen the SDK would use.
        let screen = client.screen(for: received.current[0])
        screen.didAppear()
        screen.close()
        #expect(harness.eventTypes == ["notification.received", "notification.displayed", "notification.dismissed"])
    }

    @Test func theLast200IdsAreRememberedAcrossRelaunches() async throws {
        let harness = Harness()
        var client = await harness.start(foreground: false)
        for n in 0..<201 { _ = await client.handlePush(try Self.apnsPayload(testMessage("m\(n)")), tapped: false) }
        client = await harness.relaunch()
        await client.setForeground(false)
        #expect(
            await client.handlePush(try Self.apnsPayload(testMessage("m200")), tapped: false) == .handled(.duplicate))
        #expect(await client.handlePush(try Self.apnsPayload(testMessage("m1")), tapped: false) == .handled(.duplicate))
        // The oldest was forgotten to make room: shown again (a push arriving in front is shown on the card).
        #expect(
            await client.handlePush(try Self.apnsPayload(testMessage("m0")), tapped: false) == .handled(.shownOnScreen))
        let stored = try JSON.parse(try #require(try harness.storage.read("seen-messages"))).arrayValue
        #expect(stored?.count == 200)
    }

    @Test func notHeraldPushesAreLeftToTheApp() async throws {
        let harness = Harness()
        let client = await harness.start()
        #expect(await client.handlePush(["aps": ["alert": "hi"], "n": 5], tapped: false) == .notHerald)
        #expect(await client.handlePush(fcmData: ["n": "5"], tapped: false) == .notHerald)
        let data = Dictionary(uniqueKeysWithValues: MessagePush.fcmData(for: testMessage()).map { ($0.key, $0.value) })
        #expect(await client.handlePush(fcmData: data, tapped: false) == .handled(.shownOnScreen))
    }

    @Test func presentShowsAKeptMessageAgainAndMarksItSeen() async throws {
        let harness = Harness()
        let client = await harness.start()
        let saved = testMessage("kept").jsonText
        let message = try #require(HeraldMessage(json: saved))
        await client.present(message)
        #expect(harness.presenter.shownIDs == ["kept"])
        #expect(await client.handlePush(try Self.apnsPayload(message), tapped: false) == .handled(.duplicate))
    }

    @Test func userInfoRoundTripsThroughFoundation() throws {
        let message = testMessage(media: MessageMedia(type: .image, url: "https://cdn.example.com/a.png"))
        let payload = try Self.apnsPayload(message)
        let userInfo = try #require(PushPayload.userInfo(from: payload))
        var anyHashable: [AnyHashable: Any] = [:]
        for (key, value) in userInfo { anyHashable[key] = value }
        let back = try #require(PushPayload.json(fromUserInfo: anyHashable))
        #expect(back == payload)
        #expect(MessagePush(apnsPayload: back)?.message == message)
        #expect(PushPayload.json(fromUserInfo: [1: "x"])?["1"] == "x")
    }
}

extension Harness {
    /// What the Apple shell does with a notification's `userInfo`.
    static func handle(userInfo: [String: Any], client: HeraldClient, tapped: Bool) async -> PushHandling {
        var dictionary: [AnyHashable: Any] = [:]
        for (key, value) in userInfo { dictionary[key] = value }
        guard let payload = PushPayload.json(fromUserInfo: dictionary) else { return .notHerald }
        return await client.handlePush(payload, tapped: tapped)
    }
}
