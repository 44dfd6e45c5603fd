import HeraldModel
import Testing

@testable import HeraldSDK

/// Geofencing through the client: the list fetched with its ETag, regions handed to the system, a crossing posted
/// with an Idempotency-Key kept across retries, and the visit's notification shown once with its location.
@Suite struct GeofenceTrackerTests {
    static let center = GeometryTests.timesSquare
    static let start = Timestamp(iso8601: "2025-05-01T09:30:00Z")!

    static func harness(location: FakeLocationService? = nil) -> Harness {
        let harness = Harness(location: location)
        harness.api.set(
            \.geofences,
            [
                "data": [
                    [
                        "id": "g1", "name": "Times Square", "shape": "circle",
                        "center": ["latitude": .double(center.latitude), "longitude": .double(center.longitude)],
                        "radius_meters": 100,
                        "triggers": ["enter"], "location_id": 17,
                    ],
                    [
                        "id": "g2", "name": "Far", "shape": "circle",
                        "center": ["latitude": .double(center.latitude + 1), "longitude": .double(center.longitude)],
                        "radius_meters": 100, "triggers": ["enter", "exit"],
                    ],
                ],
                "meta": ["refresh_seconds": 600, "refresh_distance_meters": 2000],
            ])
        harness.api.set(\.geofenceAnswers, ["g1": [testMessage("visit")]])
        return harness
    }

    static func fix(_ meters: Double, at time: Timestamp) -> LocationFix {
        LocationFix(coordinate: GeometryTests.north(of: center, meters), accuracyMeters: 10, timestamp: time)
    }

    @Test func enteringPostsTheCrossingAndShowsTheVisitsNotification() async throws {
        let harness = Self.harness()
        let client = await harness.start()
        await client.locationDidUpdate(Self.fix(500, at: harness.clock.time))
        #expect(harness.transport.lines.contains("GET /api/v1/geofences"))
        let get = try #require(harness.transport.requests.current.first { $0.url.contains("/geofences?") })
        #expect(get.url.hasSuffix("/api/v1/geofences?latitude=40.762497&longitude=-73.9855"))
        #expect(harness.monitor.last?.map(\.id) == ["g1", "g2", MonitoredRegion.refreshID])
        #expect(harness.api.geofenceEventBodies.isEmpty)

        harness.clock.advance(by: .seconds(60))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        let posted = try #require(harness.api.geofenceEventBodies.first)
        #expect(DeviceEventValidator.isUUID(posted.key))
        #expect(posted.body["geofence_id"] == "g1" && posted.body["event"] == "enter")
        #expect(posted.body["accuracy_meters"] == 10.0)
        #expect(posted.body["occurred_at"] == .string(harness.clock.time.iso8601WithMilliseconds))
        #expect(harness.presenter.shownIDs == ["visit"])
        #expect(harness.eventTypes == ["notification.received", "notification.displayed"])
        #expect(harness.events.current[1].data == ["location_id": 17])
        // Walking out of g1 posts nothing: it only triggers on enter.
        harness.clock.advance(by: .seconds(60))
        await client.locationDidUpdate(Self.fix(400, at: harness.clock.time))
        #expect(harness.api.geofenceEventBodies.count == 1)
    }

    @Test func theListIsFetchedAgainOnlyWhenStaleOrFar() async throws {
        let harness = Self.harness()
        let client = await harness.start()
        await client.locationDidUpdate(Self.fix(500, at: harness.clock.time))
        harness.clock.advance(by: .seconds(60))
        await client.locationDidUpdate(Self.fix(450, at: harness.clock.time))
        #expect(harness.transport.lines.filter { $0 == "GET /api/v1/geofences" }.count == 1)
        harness.clock.advance(by: .seconds(600))
        await client.locationDidUpdate(Self.fix(450, at: harness.clock.time))
        let gets = harness.transport.requests.current.filter { $0.url.contains("/geofences?") }
        #expect(gets.count == 2)
        #expect(gets[1].header("If-None-Match") == "\"g1\"", "answered 304: the list is kept")
        #expect(harness.monitor.requests.current.count == 2, "re-picked around the new point")
        await client.locationDidUpdate(Self.fix(3000, at: harness.clock.time.adding(.seconds(1))))
        #expect(harness.transport.requests.current.filter { $0.url.contains("/geofences?") }.count == 3)
    }

    @Test func aCrossingPostedOfflineIsRetriedWithTheSameKey() async throws {
        let harness = Self.harness()
        let client = await harness.start()
        await client.locationDidUpdate(Self.fix(500, at: harness.clock.time))
        harness.api.force(503, on: "/api/v1/geofence-events")
        harness.clock.advance(by: .seconds(30))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        #expect(harness.presenter.shownIDs.isEmpty)
        harness.clock.advance(by: .seconds(30))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        let keys = harness.transport.requests.current.filter { $0.url.hasSuffix("/geofence-events") }
            .map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1], "the retry kept the key: \(keys)")
        #expect(harness.presenter.shownIDs == ["visit"])
        // Staying inside posts nothing more.
        harness.clock.advance(by: .seconds(30))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        #expect(harness.presenter.shownIDs == ["visit"])
    }

    @Test func theKeySurvivesARelaunch() async throws {
        let harness = Self.harness()
        var client = await harness.start()
        await client.locationDidUpdate(Self.fix(500, at: harness.clock.time))
        harness.api.set(\.offline, true)
        harness.clock.advance(by: .seconds(30))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        let stored = try JSON.parse(try #require(try harness.storage.read("geofences")))
        let key = try #require(stored["pending"]?[0]?["key"]?.stringValue)
        harness.api.set(\.offline, false)
        client = await harness.relaunch()
        harness.clock.advance(by: .seconds(30))
        await client.locationDidUpdate(Self.fix(0, at: harness.clock.time))
        #expect(harness.api.geofenceEventBodies.map(\.key) == [key])
        #expect(harness.presenter.shownIDs == ["visit"])
    }
}

extension JSON {
    fileprivate subscript(index: Int) -> JSON? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
