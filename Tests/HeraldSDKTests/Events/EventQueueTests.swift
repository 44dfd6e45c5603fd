import HeraldModel
import Testing

@testable import HeraldSDK

/// The queue with storage, scheduler and the device API: stored before sent, deleted only after a 2xx, retried on
/// 5xx, 429 and offline, dropped on other 4xx, and still there after a relaunch.
@Suite struct EventQueueTests {
    @Test func eventsAreStoredBeforeTheyAreSentAndDeletedAfter2xx() async throws {
        let harness = Harness()
        let client = await harness.start()
        client.track("one")
        // Stored, not yet sent.
        let stored = try JSON.parse(try #require(try harness.storage.read("events")))
        #expect(stored["events"]?.arrayValue?.count == 1)
        #expect(harness.api.events.isEmpty)
        // The scheduler sends it after the short send delay.
        harness.clock.advance(by: .seconds(1))
        await harness.scheduler.runDue()
        #expect(harness.api.eventTypes == ["custom"])
        #expect(client.pendingEvents.isEmpty)
        #expect(try JSON.parse(try #require(try harness.storage.read("events")))["events"] == [])
    }

    @Test func retriesServerErrorsWithBackoffThenSucceeds() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.force(503, times: 2, on: "/api/v1/events")
        client.track("one")
        await harness.scheduler.advanceToNext()
        #expect(harness.api.events.isEmpty && client.pendingEvents.count == 1)
        let firstRetry = try #require(harness.scheduler.nextDue)
        #expect(firstRetry > harness.clock.time)
        await harness.scheduler.advanceToNext()
        #expect(harness.api.events.isEmpty && client.pendingEvents.count == 1)
        let secondRetry = try #require(harness.scheduler.nextDue)
        #expect(secondRetry.since(harness.clock.time) >= .seconds(2), "the second wait is longer")
        await harness.scheduler.advanceToNext()
        #expect(harness.api.eventTypes == ["custom"])
        #expect(client.pendingEvents.isEmpty)
    }

    @Test func rateLimitsWaitForRetryAfter() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.force(429, on: "/api/v1/events")
        client.track("one")
        let sentAt = harness.clock.time.adding(.seconds(1))
        await harness.scheduler.advanceToNext()
        #expect(harness.scheduler.nextDue == sentAt.adding(.seconds(120)))
    }

    @Test func offlineEventsWaitAndSurviveARelaunch() async throws {
        let harness = Harness()
        var client = await harness.start()
        harness.api.set(\.offline, true)
        for n in 0..<3 { client.track("offline.\(n)") }
        await harness.scheduler.advanceToNext()
        #expect(client.pendingEvents.count == 3)
        // The app is killed and launched again, still offline, then the network comes back.
        client = await harness.relaunch()
        #expect(client.pendingEvents.count == 3)
        harness.api.set(\.offline, false)
        await client.flushEvents()
        #expect(harness.api.eventTypes == ["custom", "custom", "custom"])
        let names = harness.api.events.compactMap { $0.data?["name"]?.stringValue }
        #expect(names == ["offline.0", "offline.1", "offline.2"], "in order")
    }

    @Test func otherClientErrorsDropTheBatchWithADiagnostic() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.force(400, on: "/api/v1/events")
        client.track("doomed")
        await harness.scheduler.advanceToNext()
        #expect(client.pendingEvents.isEmpty)
        #expect(harness.diagnostics.codes.contains(.eventDropped))
        #expect(harness.scheduler.count == 0, "no retry")
    }

    @Test func sendsInBatchesOf100() async throws {
        let harness = Harness()
        let client = await harness.start()
        for n in 0..<250 { client.track("e\(n)") }
        await harness.scheduler.advanceToNext()
        let posts = harness.transport.requests.current.filter { $0.url.hasSuffix("/api/v1/events") }
        #expect(try posts.map { try JSON.parse($0.body)["events"]?.arrayValue?.count } == [100, 100, 50])
        #expect(harness.api.events.count == 250)
    }

    @Test func aRetriedBatchCountsOnce() async throws {
        let harness = Harness()
        let client = await harness.start()
        client.track("once")
        let event = try #require(client.pendingEvents.first)
        // The server takes the batch but the answer is lost: the SDK sends it again; the server says duplicate.
        let lost = LockedValue(false)
        harness.transport.setHandler { [api = harness.api] request in
            let answer = api.handle(request)
            guard request.url.hasSuffix("/api/v1/events"), !lost.current else { return answer }
            lost.update { $0 = true }
            return .failure(TransportError(code: .offline, detail: "answer lost"))
        }
        await harness.scheduler.advanceToNext()
        #expect(client.pendingEvents.count == 1)
        await harness.scheduler.advanceToNext()
        #expect(client.pendingEvents.isEmpty)
        #expect(harness.api.events.map(\.id) == [event.id])
        #expect(harness.api.eventResults.compactMap { $0["status"]?.stringValue } == ["accepted", "duplicate"])
    }

    @Test func invalidEventsAreNeverQueued() async throws {
        let harness = Harness()
        let client = await harness.start()
        #expect(client.track("has space") == nil)
        #expect(client.track("ok", properties: (0..<51).map { ("p\($0)", JSON.int(Int64($0))) }) == nil)
        #expect(client.record(.notificationOpened, message: nil) == nil, "needs a message")
        #expect(client.pendingEvents.isEmpty)
        #expect(harness.diagnostics.codes == [.eventDropped, .eventDropped, .eventDropped])
        #expect(client.track("ok.name", properties: [("total", 12.5)]) != nil)
    }

    @Test func theListenerHearsEveryRecordedEvent() async throws {
        let harness = Harness()
        let client = await harness.start()
        let message = testMessage()
        client.record(.notificationOpened, message: message)
        client.track("tap")
        #expect(harness.eventTypes == ["notification.opened", "custom"])
        #expect(harness.events.current[0].message == message)
        #expect(harness.events.current[1].data == ["name": "tap"])
    }
}
