import Foundation
import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Testing

/// `POST /api/v1/events` and the campaign report it feeds (`GET …/campaigns/{cid}/report`).
@Suite("Device API: events and reports")
struct DeviceEventAPITests {
    @Test func aBatchIsJudgedEventByEventAndARetryCountsNothingTwice() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let campaign = try fixture.campaign()
        let message = try fixture.message(to: phone.installID, campaign: campaign)
        let batch = [
            deviceEvent(.notificationReceived, message),
            deviceEvent(.notificationDisplayed, message, data: ["location_id": 3]),
            ["id": "42", "type": "notification.opened", "occurred_at": "yesterday"],
            deviceEvent(.notificationOpened, message),
            deviceEvent(.appOpened, data: ["sdk_version": "1.0.0"]),
        ]
        let response = try phone.post(batch)
        #expect(response.status == 202, "\(response)")
        let results = try #require(response.value?["data"]?["results"]?.arrayValue)
        #expect(results.map { $0["status"] } == ["accepted", "accepted", "rejected", "accepted", "rejected"])
        #expect(results[0]["id"] == batch[0]["id"] && results[0]["errors"] == nil)
        #expect(results[2]["id"] == "42", "echoed as sent, though it is not a UUID")
        #expect(results[2]["errors"]?["id"] != nil && results[2]["errors"]?["occurred_at"] != nil)
        #expect(results[4]["errors"]?["data.app_version"] != nil)

        let retried = try phone.post(batch)
        #expect(
            retried.value?["data"]?["results"]?.arrayValue?.map { $0["status"] } == [
                "duplicate", "duplicate", "rejected", "duplicate", "rejected",
            ])
        let report = try fixture.report(campaign)
        #expect(report["received"] == 1 && report["displayed"] == 1)
        #expect(report["direct_opens"] == 1 && report["opened"] == 1 && report["influenced_opens"] == 0)
        #expect(report.objectValue?.count == CampaignMetric.report.count + 1, "the counters and the pace")
    }

    @Test func surveySubmittedIsJudgedByTheSharedValidatorAgainstTheMessagesSurvey() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        let campaign = try fixture.campaign()
        let survey = try fixture.message(
            to: phone.installID, campaign: campaign,
            questions: [
                ["id": "stars", "text": "Rate us", "type": "rating", "required": true],
                ["id": "note", "text": "Anything else?", "type": "open_ended", "max_length": 10],
            ])
        func submit(_ answers: JSON) throws -> JSON? {
            try phone.post([deviceEvent(.surveySubmitted, survey, data: ["answers": answers])])
                .value?["data"]?["results"]?.arrayValue?.first
        }
        let tooLong = try submit([
            ["question_id": "stars", "value": 5], ["question_id": "note", "value": "far too long"],
        ])
        #expect(tooLong?["status"] == "rejected" && tooLong?["errors"]?["data.answers.note"] != nil, "\(tooLong!)")
        #expect(try submit([["question_id": "note", "value": "ok"]])?["errors"]?["data.answers.stars"] != nil)
        #expect(
            try submit([["question_id": "stars", "value": 5], ["question_id": "note", "value": "great"]])?["status"]
                == "accepted")
        #expect(try fixture.report(campaign)["survey_submitted"] == 1)
    }

    @Test func aBodyThatIsNotABatchIs422AndEachEventFieldsHostileValueIsThatEventsRejection() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install()
        expectError(try phone.call("POST", "/api/v1/events", json: ["events": []]), 422, ["events"])
        expectError(try phone.call("POST", "/api/v1/events", json: ["events": "x"]), 422, ["events"])
        expectError(try phone.call("POST", "/api/v1/events", json: ["batch": []]), 422, ["events"])
        let many = JSON.object([("events", .array((0...100).map { _ in deviceEvent(.custom, data: ["name": "x"]) }))])
        expectError(try phone.call("POST", "/api/v1/events", json: many), 422, ["events"])
        expectError(try phone.call("POST", "/api/v1/events", body: Array("{".utf8)), 400, ["base"])

        let hostile: [JSON] = [
            42, "text", true, .null, -1, 1.5, ["a": 1], [1, 2], .string(String(repeating: "a", count: 100_000)),
            "'; DROP TABLE device_events; --", "a\u{0}b",
        ]
        for field in ["id", "type", "occurred_at", "notification_id", "data"] {
            for value in hostile {
                var event = deviceEvent(.custom, data: ["name": "cart.added"])
                if case .object(var pairs) = event {
                    pairs.removeAll { $0.key == field }
                    pairs.append((field, value))
                    event = .object(pairs)
                }
                let response = try phone.post([event, deviceEvent(.custom, data: ["name": "ok"])])
                #expect(response.status == 202, "\(field) = \(value): \(response)")
                let results = response.value?["data"]?["results"]?.arrayValue ?? []
                #expect(results.count == 2 && results[1]["status"] == "accepted", "\(field) = \(value)")
                let status = results.first?["status"]?.stringValue
                // A custom event needs no notification id; any other value is refused, an id of no message of this
                // install's as much as a malformed one.
                let fine = field == "notification_id" && value == .null
                #expect(status == (fine ? "accepted" : "rejected"), "\(field) = \(value): \(results.first ?? .null)")
            }
        }
    }

    @Test func anAppOpenWithinTheConfiguredWindowOfADeliveryIsAnInfluencedOpen() throws {
        let clock = TestClock()
        let herald = try LiveHerald(clock: clock.wallClock) { configuration in
            configuration.delivery.enabled = false
            configuration.influenceWindow = .seconds(3600)
        }
        let business = try herald.createBusiness()
        let phone = herald.deviceClient(clock: clock.wallClock)
        let registered = try phone.register(apiKey: business.apiKey, [("push_token", .string(randomAPNsToken()))])
        try #require(registered.status == 201)
        let device = try #require(
            try herald.store.read { try $0.devices.find(businessID: business.id, key: phone.installID) })
        let now = clock.wallClock.now()
        let (early, late) = try herald.store.transaction { tx -> (InboxEntry, InboxEntry) in
            let campaign = try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: "Spring", message: [:], audience: ["all": true],
                    channels: ["push"], trigger: ["type": "now"], limits: [:], sandbox: false, status: .completed,
                    createdAt: now, updatedAt: now))
            func message(_ trigger: String) throws -> InboxEntry {
                try NotificationService().publish(
                    NotificationDraft(
                        businessID: business.id, userID: nil, kind: .campaign, event: "campaign", title: "Hi",
                        body: "Hello", campaignID: campaign.id, triggerKey: trigger, deviceID: device.id,
                        message: ["type": "message", "headline": "Hi", "body": "Hello"]),
                    in: tx, at: now)
            }
            return (try message("early"), try message("late"))
        }
        // The pushes are accepted by Apple now (the queue records it as the delivery engine would).
        let claimed = try herald.store.deliveryQueue.claim(
            owner: "test", limit: 10, leaseUntil: now.adding(.seconds(60)), at: now)
        #expect(claimed.count == 2)
        try herald.store.deliveryQueue.record(
            claimed.map {
                DeliveryCompletion(
                    id: $0.id, leaseOwner: "test", outcome: .delivered(providerMessageID: nil), deviceID: $0.deviceID,
                    token: $0.token)
            }, at: now)
        let opened = DeviceEvent.appOpenedData(sdkVersion: "1.0.0", appVersion: "3.2.0", osVersion: "17.4")
        // Two hours on, past the one-hour window: nobody's open. Then a tap of one, and a report.
        clock.advance(by: .seconds(2 * 3600))
        #expect(try phone.post([deviceEvent(.appOpened, data: opened, at: clock.wallClock.now())]).status == 202)
        let report = { () throws -> JSON in
            let campaignID = try #require(late.draft.campaignID)
            return try #require(
                try herald.admin("GET", "/api/admin/businesses/\(business.id)/campaigns/\(campaignID)/report").value)
        }
        #expect(try report()["influenced_opens"] == 0)
        // Within the window of the delivery: the newest message is the influencer.
        #expect(
            try phone.post([deviceEvent(.appOpened, data: opened, at: now.adding(.seconds(600)))]).status == 202)
        let within = try report()
        #expect(within["influenced_opens"] == 1 && within["opened"] == 1 && within["direct_opens"] == 0)
        #expect(try herald.store.read { try $0.inbox.hasMilestone(notificationID: late.id, type: "influenced_opens") })
        #expect(
            try !herald.store.read { try $0.inbox.hasMilestone(notificationID: early.id, type: "influenced_opens") })
    }

    @Test func theReportIsTheBusinesssAndReadsCountersNotRows() throws {
        let fixture = try ServerFixture()
        let campaign = try fixture.campaign()
        try fixture.store.transaction { tx in
            try tx.campaigns.count(.targeted, by: 1_000_000, campaignID: campaign.id)
            try tx.campaigns.count(.sent, by: 1_000_000, campaignID: campaign.id)
            try tx.campaigns.count(.delivered, by: 998_500, campaignID: campaign.id)
            try tx.campaigns.count(.failed, by: 1_500, campaignID: campaign.id)
        }
        let report = try fixture.report(campaign)
        #expect(
            report.objectValue?.map(\.key) == [
                "targeted", "sent", "delivered", "failed", "received", "displayed", "opened", "direct_opens",
                "influenced_opens", "cta_clicked", "dismissed", "media_viewed", "media_completed", "survey_started",
                "survey_submitted", "granted", "redeemed", "pace",
            ], "the counters, then the pace")
        #expect(report["targeted"] == 1_000_000 && report["delivered"] == 998_500 && report["received"] == 0)
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        for target in [
            "/api/admin/businesses/\(other.id)/campaigns/\(campaign.id)/report",
            "/api/admin/businesses/\(fixture.business.id)/campaigns/\(campaign.id + 1)/report",
            "/api/admin/businesses/\(fixture.business.id)/campaigns/abc/report",
        ] {
            expectError(try fixture.herald.admin("GET", target), 404, ["base"])
        }
        #expect(try fixture.herald.client().request("GET", "/api/admin/businesses/1/campaigns/1/report").status == 401)
    }
}
