import Foundation
import HeraldModel
import HeraldDeliveryPorts
import HeraldAPI
import HeraldTesting
import Testing

/// What an operator looks up and does by hand: users by email, a business's inbox entries, retry now.
@Suite("Admin API: operator routes")
struct OperatorAPITests {
    private func path(_ fixture: ServerFixture, _ rest: String) -> String {
        "/api/admin/businesses/\(fixture.business.id)\(rest)"
    }

    @Test func retryMakesQueuedDeliveriesDueNow() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        let ids = try fixture.news(to: [ann.userID!])
        // As if a failed attempt had put the job off for an hour.
        let later = WallClock.system.now().adding(.seconds(3600))
        try fixture.store.deliveryQueue.reschedule(businessID: fixture.business.id, platform: .apns, dueAt: later)
        let waiting = try #require(try fixture.deliveries(notificationID: ids[0]).first)
        let waitingUntil = try #require(waiting["next_attempt_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(waitingUntil > later.adding(.seconds(-60)))

        let response = try fixture.herald.admin("POST", path(fixture, "/deliveries/retry"))
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["retried"] == .int(2), "the sign-up welcome and the news")
        let due = try #require(try fixture.deliveries(notificationID: ids[0]).first)
        let next = try #require(due["next_attempt_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(next <= WallClock.system.now())

        // Only one notification's, when named; an unknown field is refused.
        let one = try fixture.herald.admin(
            "POST", path(fixture, "/deliveries/retry"), json: #"{"notification_id":\#(ids[0] + 1000)}"#)
        #expect(one.value?["retried"] == .int(0))
        expectError(
            try fixture.herald.admin("POST", path(fixture, "/deliveries/retry"), json: #"{"platform":"apns"}"#), 422,
            ["platform"])
    }

    @Test func usersAreListedByPageAndFoundByEmail() throws {
        let fixture = try ServerFixture()
        _ = try fixture.signedUp("ann@example.com")
        _ = try fixture.signedUp("bob@example.com", firstName: "Bob")
        let all = try fixture.herald.admin("GET", path(fixture, "/users"))
        #expect(all.status == 200)
        let users = try #require(all.value?["data"]?.arrayValue)
        #expect(users.map { $0["email"] } == ["ann@example.com", "bob@example.com"])
        #expect(!all.text.contains("password"))
        let second = try fixture.herald.admin("GET", path(fixture, "/users?limit=1&offset=1"))
        #expect(second.value?["data"]?.arrayValue?.map { $0["email"] } == ["bob@example.com"])
        let found = try fixture.herald.admin("GET", path(fixture, "/users?email=BOB@example.com"))
        #expect(found.value?["data"]?.arrayValue?.map { $0["first_name"] } == ["Bob"])
        expectError(try fixture.herald.admin("GET", path(fixture, "/users?limit=0")), 422, ["limit"])
        #expect(try fixture.herald.admin("GET", "/api/admin/businesses/999/users").status == 404)
    }

    @Test func notificationsAreListedNewestFirst() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let ids = try fixture.news(to: ann.userID!, count: 3)
        let response = try fixture.herald.admin("GET", path(fixture, "/notifications?limit=2"))
        #expect(response.status == 200)
        let listed = try #require(response.value?["data"]?.arrayValue)
        #expect(listed.compactMap { $0["id"]?.int64Value } == [ids[2], ids[1]])
        #expect(listed.first?["user_id"] == .int(ann.userID!))
        let mine = try fixture.herald.admin("GET", path(fixture, "/notifications?user_id=\(ann.userID!)&limit=500"))
        // The three news items and the sign-up welcome.
        #expect(mine.value?["data"]?.arrayValue?.count == 4)
        expectError(try fixture.herald.admin("GET", path(fixture, "/notifications?user_id=x")), 422, ["user_id"])
    }

    @Test(.bug(id: "issue-35-15", "GET /openapi.json was 404 unless the file was installed beside the binary"))
    func theOpenAPIDocumentIsServedFromTheBinary() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.client().request("GET", "/openapi.json")
        #expect(response.status == 200)
        #expect(response.value?["openapi"]?.stringValue?.hasPrefix("3.1") == true)
        // Byte for byte docs/openapi.json, whatever the working directory: scripts/generate-console embeds it.
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let onDisk = try Data(contentsOf: root.appendingPathComponent("docs/openapi.json"))
        // (A Bool: a failing comparison of two 400 KB arrays would have the test library diff them, and it crashes.)
        let same = response.body == Array(onDisk)
        #expect(same, "the embedded document is stale: run scripts/generate-console")
    }

    @Test("a push to raw tokens goes through the queue: a known token's device, or a new device of no user")
    func pushesToRawTokensAreQueued() throws {
        let fixture = try ServerFixture()
        let annToken = randomAPNsToken()
        let ann = try fixture.signedUp("ann@example.com", token: annToken, deviceID: "phone-1")
        let stranger = randomAPNsToken()
        let body = JSON.object([
            ("platform", "apns"), ("tokens", .array([.string(annToken), .string(stranger), .string(stranger)])),
            ("title", "Hello"), ("body", "From curl"), ("data", .object([("deep_link", "burger://menu")])),
        ])
        let response = try fixture.herald.admin("POST", path(fixture, "/pushes"), json: body.encodedString)
        #expect(response.status == 202, "\(response)")
        let list = try #require(response.value?["notification_ids"]?.arrayValue)
        let ids = list.compactMap(\.int64Value)
        #expect(ids.count == 2, "one per distinct token")
        let annDevice = try #require(try fixture.store.read { try $0.devices.all(userID: ann.userID!) }.first)
        let first = try #require(try fixture.deliveries(notificationID: ids[0]).first)
        #expect(first["device_id"] == .int(annDevice.id))
        #expect(first["status"] == "queued")
        let second = try #require(try fixture.deliveries(notificationID: ids[1]).first)
        #expect(second["device_id"] != .int(annDevice.id))
        // Not in Ann's inbox; the same stranger again is the same device.
        #expect(try ann.entries().allSatisfy { $0["title"] != "Hello" })
        let again = try fixture.herald.admin(
            "POST", path(fixture, "/pushes"),
            json: #"{"platform":"apns","tokens":["\#(stranger)"],"title":"Again","body":"B"}"#)
        let againID = try #require(again.value?["notification_ids"]?.arrayValue?.first?.int64Value)
        #expect(try fixture.deliveries(notificationID: againID).first?["device_id"] == second["device_id"])
    }

    @Test func pushesRefuseWhatIsNotAPush() throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin(
                "POST", path(fixture, "/pushes"), json: #"{"platform":"web","tokens":[],"title":"T","body":"B"}"#),
            422, ["platform", "tokens"])
        expectError(
            try fixture.herald.admin(
                "POST", path(fixture, "/pushes"),
                json: #"{"platform":"apns","tokens":["xyz"],"title":"T","body":"B","data":{"aps":"x"},"badge":1}"#),
            422, ["tokens[0]", "data", "badge"])
    }
}
