import Foundation
import HeraldDelivery
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Campaigns through the admin API, to the pushes Herald hands Apple and Google and the inboxes it fills.
@Suite("Campaigns through the admin API")
struct CampaignAPITests {
    let apns = RecordingPushProvider(platform: .apns)
    let fcm = RecordingPushProvider(platform: .fcm)
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys

    init() throws {
        let providers: [any PushProvider] = [apns, fcm]
        herald = try LiveHerald(providers: { _ in providers })
        business = try herald.createBusiness()
    }

    func create(_ json: JSON) throws -> TestHTTPClient.Response {
        try herald.admin("POST", "/api/admin/businesses/\(business.id)/campaigns", json: json.encodedString)
    }

    func id(_ response: TestHTTPClient.Response) throws -> Int64 {
        Int64(try #require((response.json as? [String: Any])?["id"] as? Int))
    }

    static let message: JSON = [
        "headline": "Soup's on", "body": "Try the new tomato soup",
        "media": ["type": "image", "url": "https://cdn.example.com/soup.jpg"],
        "cta": ["label": "Order now", "url": "https://example.com/order"],
    ]

    @Test func aCampaignReachesIPhonesAndroidsAndInboxesAsTheContractShowsIt() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let bob = try herald.signUpSettled(
            business, email: "bob@example.com", firstName: "Bob", token: randomFCMToken(), android: true)
        let created = try create([
            "name": "Winter menu", "message": Self.message, "audience": ["all": true],
            "channels": ["push", "inbox"], "trigger": ["type": "now"],
        ])
        #expect(created.status == 201, "\(created)")
        #expect((created.json as? [String: Any])?["status"] as? String == "draft")
        let campaign = try id(created)
        let launched = try herald.admin("POST", "/api/admin/businesses/\(business.id)/campaigns/\(campaign)/launch")
        #expect(launched.status == 200 && (launched.json as? [String: Any])?["status"] as? String == "running")

        // Ann's iPhone (a Punchh app, no SDK) gets her inbox entry as Punchh's own pushes carry one: the badge
        // counting it, `n` naming it, `u`; the image attached by a service extension. Nothing else.
        let push = try #require(apns.waitForPushes(2).last, "the sign-up welcome, then the campaign")
        let payload = push.payload
        let inbox = try JSON.parse(try ann.notifications().body)
        let entry = try #require(inbox.arrayValue?.first { $0["message"] == "Try the new tomato soup" }, "\(inbox)")
        #expect(payload["aps"]?["alert"] == ["title": "Soup's on", "body": "Try the new tomato soup"])
        #expect(payload["aps"]?["sound"] == "default")
        #expect(payload["aps"]?["badge"] == 2, "the welcome and the campaign, both unread")
        #expect(payload["aps"]?["mutable-content"] == 1, "a service extension attaches the image")
        #expect(payload["ab"]?["att"] == ["url": "https://cdn.example.com/soup.jpg", "type": "jpg"])
        #expect(payload["n"] == entry["id"] && payload["u"]?.int64Value == ann.userID)
        #expect(payload.objectValue?.map(\.key).sorted() == ["ab", "aps", "n", "u"])

        // Bob's Android (a Punchh app, no SDK): the notification block, and the same keys in data as strings.
        let android = try #require(fcm.waitForPushes(2).last)
        let fcmMessage = android.fcmMessage["message"]
        #expect(fcmMessage?["notification"]?["title"] == "Soup's on")
        #expect(fcmMessage?["data"]?["badge"] == "2" && fcmMessage?["data"]?["u"]?.stringValue == String(bob.userID!))
        #expect(fcmMessage?["data"]?["herald"] == nil)

        // Ann opens the app through the push and marks the entry read: a direct open of the campaign's message.
        let marked = try ann.markRead([try #require(entry["id"]?.int64Value)], event: "app_open_via_push")
        #expect(marked.status == 200, "\(marked)")

        // The campaign completes; its progress and delivery counts follow.
        let done = try CommitWaiter(self.herald.store).wait(timeout: .seconds(10)) { store in
            try store.read { try $0.campaigns.counters(campaignID: campaign) }["delivered"] == 2
        }
        #expect(done)
        let shown = try self.herald.admin("GET", "/api/admin/businesses/\(business.id)/campaigns/\(campaign)")
        let object = try #require(shown.json as? [String: Any])
        #expect(object["status"] as? String == "completed")
        #expect((object["progress"] as? [String: Any])?["targeted"] as? Int == 2)
        let report = try self.herald.admin(
            "GET", "/api/admin/businesses/\(business.id)/campaigns/\(campaign)/report")
        let counts = try #require(report.json as? [String: Any])
        #expect(counts["opened"] as? Int == 1 && counts["direct_opens"] as? Int == 1, "\(counts)")
        // Its pace: both pushes answered within the minute, none waiting, so no finish to expect and nothing pacing.
        let pace = try #require(report.value?["pace"], "\(counts)")
        #expect(pace.objectValue?.map(\.key) == ["rate_per_second", "waiting", "expected_finish_at", "paced_by"])
        #expect((pace["rate_per_second"]?.doubleValue ?? 0) > 0, "\(pace)")
        #expect(pace["waiting"] == 0 && pace["expected_finish_at"] == .null && pace["paced_by"] == .null)
    }

    @Test func anSDKInstallsAndroidGetsANotificationMessageWithData() throws {
        let bob = try herald.signUpSettled(
            business, email: "bob@example.com", firstName: "Bob", token: randomFCMToken(), android: true)
        // The same phone registered by the SDK (the install API is the device API's; its effect is this).
        try herald.store.transaction { tx in
            guard var device = try tx.devices.all(userID: bob.userID!).first else { return }
            device.install = Install(workspace: .live, keyID: "key-bob", sealedSecret: [1])
            try tx.devices.save(device)
        }
        let campaign = try id(
            try create([
                "name": "Drawn by the SDK", "message": Self.message, "audience": ["user_ids": [.int(bob.userID!)]],
                "channels": ["push", "pull"], "trigger": ["type": "now"],
            ]))
        _ = try herald.admin("POST", "/api/admin/businesses/\(business.id)/campaigns/\(campaign)/launch")
        let push = try #require(fcm.waitForPushes(2).last)
        let message = try #require(push.fcmMessage["message"])
        // Android draws it from `notification` in the background; `data.herald` carries the message and its id.
        #expect(message["notification"]?["title"] == "Soup's on", "\(message)")
        #expect(message["android"]?["notification"]?["sound"] == "default")
        #expect(message["data"]?["herald"] != nil && message["data"]?["ab"] != nil)
    }

    @Test func unknownAndWrongFieldsAreNamed() throws {
        let unknown = try create([
            "name": "X", "message": ["headline": "H", "body": "B", "cta_label": "Go"], "audience": ["all": true],
            "channels": ["push"], "trigger": ["type": "now"], "colour": "red",
        ])
        #expect(unknown.status == 422)
        let fields = try #require((unknown.json as? [String: Any])?["errors"] as? [String: Any])
        #expect(fields["message.cta_label"] != nil && fields["colour"] != nil, "\(fields)")

        let wrong = try create([
            "name": "X", "message": ["headline": "H", "body": "B", "cta": ["url": "javascript:alert(1)"]],
            "audience": ["all": true, "user_ids": [1]], "channels": ["email"],
            "trigger": ["type": "scheduled", "local_time": "25:00"],
            "limits": ["quiet_hours": ["start": "22:00", "end": "22:00"], "frequency_cap": ["count": 0]],
        ])
        #expect(wrong.status == 422)
        let problems = try #require((wrong.json as? [String: Any])?["errors"] as? [String: Any])
        for field in [
            "message.cta.url", "audience", "channels", "trigger.local_time", "limits.quiet_hours",
            "limits.frequency_cap.count", "limits.frequency_cap.period_hours",
        ] {
            #expect(problems[field] != nil, "\(field): \(problems)")
        }
        let missing = try herald.admin("POST", "/api/admin/businesses/\(business.id)/campaigns/77/launch")
        #expect(missing.status == 404)
    }

    @Test func geofencesAreCirclesOrPolygonsOfTheBusiness() throws {
        let circle = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/geofences",
            json:
                #"{"name":"Brooklyn","shape":"circle","center":{"latitude":40.6782,"longitude":-73.9442},"radius_meters":150}"#
        )
        #expect(circle.status == 201, "\(circle)")
        let polygon = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/geofences",
            json:
                #"{"name":"Park","shape":"polygon","polygon":[{"latitude":40.66,"longitude":-73.97},{"latitude":40.66,"longitude":-73.96},{"latitude":40.67,"longitude":-73.96}]}"#
        )
        #expect(polygon.status == 201, "\(polygon)")
        let object = try #require(polygon.json as? [String: Any])
        #expect((object["radius_meters"] as? Double ?? 0) > 500, "the circle around the polygon")
        let bad = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/geofences",
            json: #"{"name":"X","shape":"circle","center":{"latitude":91,"longitude":0},"radius_meters":5}"#)
        #expect(bad.status == 422)
        let list = try herald.admin("GET", "/api/admin/businesses/\(business.id)/geofences")
        #expect(((list.json as? [String: Any])?["data"] as? [Any])?.count == 2)
        let campaign = try create([
            "name": "Walk-by", "message": Self.message, "audience": ["all": true], "channels": ["pull"],
            "trigger": ["type": "geofence", "geofence_ids": [.int(try id(circle)), 999]],
        ])
        #expect(campaign.status == 422, "geofence 999 is not the business's: \(campaign)")
    }
}
