import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Campaigns as SDK installs meet them over HTTP: a launched campaign pulled, its events in the report, the
/// geofences the SDK monitors and the visits it reports.
@Suite("Campaigns on devices")
struct CampaignDeviceTests {
    let fixture: ServerFixture
    var businessPath: String { "/api/admin/businesses/\(fixture.business.id)" }

    init() throws { fixture = try ServerFixture() }

    static let message: JSON = [
        "headline": "Soup's on", "body": "Try the new tomato soup",
        "media": ["type": "image", "url": "https://cdn.example.com/soup.jpg"],
        "cta": ["label": "Order now", "url": "https://example.com/order"],
    ]

    /// Creates a campaign through the admin API and answers its id.
    func create(_ json: JSON) throws -> Int64 {
        let response = try fixture.herald.admin("POST", "\(businessPath)/campaigns", json: json.encodedString)
        try #require(response.status == 201, "\(response)")
        return try #require(response.value?["id"]?.int64Value)
    }

    func launch(_ id: Int64) throws {
        let response = try fixture.herald.admin("POST", "\(businessPath)/campaigns/\(id)/launch")
        try #require(response.status == 200, "\(response)")
    }

    /// Waits for the fan-out to reach the whole audience (the runner works in the background).
    func waitUntilCompleted(_ id: Int64) throws {
        let completed = try Poll.until(timeout: .seconds(15), every: .milliseconds(20)) {
            try fixture.herald.admin("GET", "\(businessPath)/campaigns/\(id)").value?["status"] == "completed"
        }
        if !completed { Issue.record("campaign \(id) did not complete") }
    }

    func event(_ type: DeviceEventType, _ message: JSON, data: JSON? = nil) -> JSON {
        DeviceEvent(
            id: UUIDString.random(), type: type, occurredAt: WallClock.system.now(),
            notificationID: message["id"]?.stringValue, data: data
        ).json
    }

    @Test func aLaunchedCampaignIsPulledAsTheSDKReadsItAndItsEventsReachTheReport() throws {
        let phones = try (0..<3).map { _ in try fixture.install() }
        let sandboxPhone = try fixture.install(sandbox: true)
        let id = try create([
            "name": "Winter menu", "message": Self.message, "audience": ["all": true], "channels": ["pull"],
            "trigger": ["type": "now"],
        ])
        try launch(id)
        try waitUntilCompleted(id)

        var pulled: [JSON] = []
        for phone in phones {
            let messages = try phone.pull()
            #expect(messages.count == 1, "one message each")
            pulled += messages
        }
        #expect(try sandboxPhone.pull().isEmpty, "a live campaign leaves sandbox installs out")
        let message = try #require(HeraldMessage(json: pulled[0]))
        #expect(message.headline == "Soup's on" && message.body == "Try the new tomato soup")
        #expect(message.campaignID == String(id) && message.media?.type == .image)
        #expect(message.cta?.url == "https://example.com/order")
        #expect(Set(pulled.compactMap { $0["id"]?.stringValue }).count == 3, "a message id per install")
        // Fetched again by id (a push too large to carry it): the same message.
        let fetched = try phones[0].call("GET", "/api/v1/notifications/\(message.id)")
        #expect(fetched.value == pulled[0], "\(fetched)")

        // What the phones report, counted once per message however often it is sent.
        let first = [
            event(.notificationReceived, pulled[0]), event(.notificationDisplayed, pulled[0]),
            event(.notificationOpened, pulled[0]), event(.notificationCTAClicked, pulled[0]),
        ]
        #expect(try phones[0].post(first).status == 202)
        #expect(try phones[0].post(first.map { _ in event(.notificationOpened, pulled[0]) }).status == 202)
        #expect(try phones[1].post([event(.notificationDismissed, pulled[1])]).status == 202)
        let report = try fixture.herald.admin("GET", "\(businessPath)/campaigns/\(id)/report").value
        #expect(report?["targeted"] == 3 && report?["sent"] == 3, "\(String(describing: report))")
        #expect(report?["received"] == 1 && report?["displayed"] == 1 && report?["opened"] == 1)
        #expect(report?["direct_opens"] == 1 && report?["cta_clicked"] == 1 && report?["dismissed"] == 1)
    }

    // MARK: - Geofences

    /// A geofence 150 m around Brooklyn's center and a running campaign triggered on entering it.
    func walkBy(limits: JSON = ["cooldown_seconds": 3600]) throws -> (geofence: Int64, campaign: Int64) {
        let created = try fixture.herald.admin(
            "POST", "\(businessPath)/geofences",
            json:
                #"{"name":"Brooklyn","shape":"circle","center":{"latitude":40.6782,"longitude":-73.9442},"radius_meters":150}"#
        )
        let geofence = try #require(created.value?["id"]?.int64Value, "\(created)")
        let campaign = try create([
            "name": "Walk-by", "message": Self.message, "audience": ["all": true], "channels": ["pull"],
            "trigger": ["type": "geofence", "geofence_ids": [.int(geofence)], "event": "enter"], "limits": limits,
        ])
        try launch(campaign)
        return (geofence, campaign)
    }

    func visit(
        _ phone: DeviceTestClient, _ body: JSON, key: String? = UUIDString.random()
    ) throws -> TestHTTPClient.Response {
        try phone.call(
            "POST", "/api/v1/geofence-events", body: body.encoded,
            headers: key.map { [("Idempotency-Key", $0)] } ?? [])
    }

    func entering(_ geofence: Int64) -> JSON {
        [
            "geofence_id": .int(geofence), "event": "enter", "occurred_at": .string(WallClock.system.now().iso8601),
            "latitude": 40.6783, "longitude": -73.9441, "accuracy_meters": 12,
        ]
    }

    @Test func theSDKIsToldWhichGeofencesToMonitorWithAnETag() throws {
        let phone = try fixture.install()
        let nearby = "/api/v1/geofences?latitude=40.68&longitude=-73.95"
        let none = try phone.call("GET", nearby)
        #expect(none.status == 200 && none.value?["data"] == [], "no campaign is triggered by any geofence yet")
        let (geofence, _) = try walkBy()
        let listed = try phone.call("GET", nearby)
        #expect(listed.status == 200, "\(listed)")
        let first = try #require(listed.value?["data"]?.arrayValue?.first)
        #expect(first["id"]?.int64Value == geofence && first["shape"] == "circle" && first["triggers"] == ["enter"])
        #expect(first["center"]?["latitude"] == 40.6782 && first["radius_meters"] == 150)
        #expect(listed.value?["meta"]?["refresh_seconds"]?.int64Value ?? 0 > 0)
        let etag = try #require(listed.header("etag"))
        let again = try phone.call("GET", nearby, headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty, "\(again)")
        // Far away (Los Angeles) nothing is listed, and a sandbox install sees only sandbox campaigns.
        #expect(try phone.call("GET", "/api/v1/geofences?latitude=34.05&longitude=-118.24").value?["data"] == [])
        let tester = try fixture.install(sandbox: true)
        #expect(try tester.call("GET", nearby).value?["data"] == [])
    }

    @Test func aVisitAnswersWhatItTriggeredOnceWithinTheCooldownAndTheSameKeyAnswersTheSame() throws {
        let phone = try fixture.install()
        let (geofence, campaign) = try walkBy()
        let key = UUIDString.random()
        let answer = try visit(phone, entering(geofence), key: key)
        #expect(answer.status == 200, "\(answer)")
        let shown = try #require(answer.value?["data"]?["notifications"]?.arrayValue)
        #expect(shown.count == 1)
        let message = try #require(HeraldMessage(json: shown[0]))
        #expect(message.headline == "Soup's on" && message.campaignID == String(campaign))
        // The SDK retrying the same visit gets the same answer; a new visit within the cooldown gets nothing.
        #expect(try visit(phone, entering(geofence), key: key).value == answer.value)
        #expect(try visit(phone, entering(geofence)).value?["data"]?["notifications"] == [])
        // Exits don't trigger an enter campaign; the visit was written for the report.
        var exit = entering(geofence)
        exit = .object((exit.objectValue ?? []).map { $0.key == "event" ? ($0.key, "exit") : $0 })
        #expect(try visit(phone, exit).value?["data"]?["notifications"] == [])
        let report = try fixture.herald.admin("GET", "\(businessPath)/campaigns/\(campaign)/report").value
        #expect(report?["targeted"] == 1 && report?["sent"] == 1, "\(String(describing: report))")
    }

    @Test func badVisitsAndQueriesAreNamed() throws {
        let phone = try fixture.install()
        let (geofence, _) = try walkBy()
        expectError(try visit(phone, entering(geofence), key: nil), 422, ["idempotency_key"])
        // A control byte in any header value is refused by the HTTP server itself (issue 16).
        expectError(try visit(phone, entering(geofence), key: "bad key\u{7}"), 400, ["base"])
        var body = entering(geofence).objectValue ?? []
        body.append(("speed", 3))
        expectError(try visit(phone, .object(body)), 422, ["speed"])
        let bad: [(String, JSON)] = [
            ("geofence_id", "1"), ("geofence_id", 0), ("event", "dwell"), ("occurred_at", "yesterday"),
            ("occurred_at", "2001-01-01T00:00:00Z"), ("latitude", 91), ("longitude", "east"),
            ("accuracy_meters", -1),
        ]
        for (field, value) in bad {
            let body = (entering(geofence).objectValue ?? []).map { $0.key == field ? (field, value) : $0 }
            expectError(try visit(phone, .object(body)), 422, [field])
        }
        let unknown = (entering(geofence).objectValue ?? []).map {
            $0.key == "geofence_id" ? ("geofence_id", JSON.int(geofence + 1000)) : $0
        }
        expectError(try visit(phone, .object(unknown)), 404, ["geofence_id"])
        for query in [
            "", "?latitude=40.68", "?latitude=91&longitude=0", "?latitude=abc&longitude=0",
            "?latitude=nan&longitude=0",
        ] {
            #expect(try phone.call("GET", "/api/v1/geofences\(query)").status == 422, "\(query)")
        }
        let unsigned = try fixture.herald.client().request("GET", "/api/v1/geofences?latitude=1&longitude=1")
        #expect(unsigned.status == 401)
    }
}
