import Foundation
import HeraldDelivery
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Campaigns reaching apps written for Punchh's mobile API, as Punchh's own pushes do (seed 000): a survey campaign
/// to a segment pushes `s` with a user survey the app fetches, an offer campaign grants its offer once and pushes
/// it, and a geofence campaign reaches a Punchh app through its beacon calls.
@Suite("Campaigns to Punchh apps")
struct PunchhCampaignTests {
    let apns = RecordingPushProvider(platform: .apns)
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys

    init() throws {
        let providers: [any PushProvider] = [apns]
        herald = try LiveHerald(providers: { _ in providers })
        business = try herald.createBusiness()
    }

    func admin(_ method: String, _ path: String, _ json: JSON? = nil) throws -> JSON {
        let response = try herald.admin(
            method, "/api/admin/businesses/\(business.id)" + path, json: json?.encodedString)
        #expect((200..<300).contains(response.status), "\(method) \(path): \(response)")
        return try JSON.parse(response.body)
    }

    /// Creates and launches a campaign; its id.
    func launch(_ campaign: JSON) throws -> Int64 {
        let id = try #require(try admin("POST", "/campaigns", campaign)["id"]?.int64Value)
        _ = try admin("POST", "/campaigns/\(id)/launch")
        return id
    }

    /// The push of the campaign's entry in `user`'s inbox (the newest entry).
    func campaignPush(_ app: MobileTestClient, count: Int) throws -> (entry: JSON, payload: JSON) {
        let push = try #require(apns.waitForPushes(count).last)
        let inbox = try JSON.parse(try app.notifications().body)
        let entry = try #require(inbox.arrayValue?.first)
        return (entry, push.payload)
    }

    @Test func aSurveyCampaignToASegmentGivesEachPunchhUserASurveyAndPushesS() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let survey = try #require(
            try admin(
                "POST", "/surveys",
                [
                    "title": "Your visit",
                    "questions": [["id": "q1", "text": "Good?", "type": "boolean", "required": true]],
                ]
            )["id"]?.int64Value)
        let segment = try #require(
            try admin("POST", "/segments", ["name": "iPhones", "filter": ["platform": "ios"]])["id"]?.int64Value)
        _ = try launch([
            "name": "How was it",
            "message": ["headline": "How was your visit", "body": "Tell us", "survey_id": .int(survey)],
            "audience": ["segment_id": .int(segment)], "channels": ["push", "inbox"], "trigger": ["type": "now"],
        ])
        let (entry, payload) = try campaignPush(ann, count: 2)
        // Exactly the survey push's keys in seed 000: f, n, p, u, s (f and p from the last check-in: none yet).
        #expect(payload.objectValue?.map(\.key).sorted() == ["aps", "f", "n", "p", "s", "u"], "\(payload)")
        #expect(payload["aps"]?["badge"] == 2 && payload["n"] == entry["id"])
        #expect(payload["f"] == 0 && payload["p"] == 0 && payload["u"]?.int64Value == ann.userID)
        // The app fetches that user survey (Fetch User Survey) and answers it.
        let userSurvey = try #require(payload["s"]?.int64Value)
        let details = try ann.call(
            "GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(userSurvey)")
        #expect(details.status == 200, "\(details)")
        #expect(try JSON.parse(details.body)["id"]?.int64Value == userSurvey)
    }

    @Test func anOfferCampaignGrantsItOncePerUserAndItsReportCountsGrantsAndRedemptions() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let location = try herald.createLocation(business)
        let offer = try #require(
            try admin("POST", "/offers", ["name": "Free Fries", "discount": 3, "valid_days": 30])["id"]?.int64Value)
        let campaign = try launch([
            "name": "Fries on us", "message": ["headline": "Free fries", "body": "This week", "offer_id": .int(offer)],
            "audience": ["all": true], "channels": ["push", "inbox"], "trigger": ["type": "now"],
        ])
        let (entry, payload) = try campaignPush(ann, count: 2)
        // The Offer notification the app handles: `r` (the reward to redeem), `u`, with the badge and `n`.
        #expect(payload.objectValue?.map(\.key).sorted() == ["aps", "n", "r", "u"], "\(payload)")
        #expect(payload["n"] == entry["id"] && payload["aps"]?["badge"] == 2)
        let rewardID = try #require(payload["r"]?.int64Value)
        let offers = try JSON.parse(try ann.call("GET", "/api2/mobile/offers?client=\(business.client)").body)
        #expect(offers["rewards"]?.arrayValue?.map { $0["reward_id"]?.int64Value } == [rewardID])

        // Redeemed at the POS: the report counts the grant and the redemption.
        let code = try #require(
            try JSON.parse(
                try ann.call("POST", "/api2/mobile/redemptions", json: [("reward_id", .int(rewardID))]).body
            )["redemption_code"]?.stringValue)
        let honoured = try herald.pos(
            business, "POST", "/api/pos/redemptions",
            json: ["redemption_code": .string(code), "location_id": .int(location)])
        #expect(honoured.status == 201, "\(honoured)")
        let report = try admin("GET", "/campaigns/\(campaign)/report")
        #expect(report["granted"] == 1 && report["redeemed"] == 1, "\(report)")
    }

    /// A location named `name` with `beaconMinors`, a geofence around it, and a running survey campaign sent on
    /// leaving it; the location's id.
    func exitSurvey(at name: String, beaconMinors: [Int64]) throws -> Int64 {
        let location = try #require(
            try admin(
                "POST", "/locations",
                ["name": .string(name + " Location"), "beacon_minors": .array(beaconMinors.map { .int($0) })]
            )["id"]?.int64Value)
        let geofence = try #require(
            try admin(
                "POST", "/geofences",
                [
                    "name": .string(name), "shape": "circle", "center": ["latitude": 40.7, "longitude": -73.9],
                    "radius_meters": 100, "location_id": .int(location),
                ])["id"]?.int64Value)
        let survey = try #require(
            try admin(
                "POST", "/surveys",
                [
                    "title": "Your visit",
                    "questions": [["id": "q1", "text": "Good?", "type": "boolean", "required": true]],
                ]
            )["id"]?.int64Value)
        _ = try launch([
            "name": .string("Beacon exit survey at " + name),
            "message": ["headline": "How was your visit", "body": "Tell us", "survey_id": .int(survey)],
            "audience": ["all": true], "channels": ["push", "inbox"],
            "trigger": ["type": "geofence", "geofence_ids": [.int(geofence)], "event": "exit"],
        ])
        return location
    }

    @Test func aBeaconExitSendsTheGeofenceCampaignsSurveyToAPunchhApp() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        _ = try exitSurvey(at: "Brooklyn", beaconMinors: [7, 8])
        #expect(try admin("GET", "")["beacon_major"]?.int64Value == business.id)

        let entered = try ann.call(
            "POST", "/api2/mobile/locations/beacon_entry",
            json: [("beacon_major", .int(business.id)), ("beacon_minor", 8)])
        #expect(entered.status == 200, "\(entered)")
        #expect(try JSON.parse(try ann.notifications().body).arrayValue?.count == 1, "an exit campaign: nothing yet")

        let exited = try ann.call(
            "DELETE", "/api2/mobile/locations/beacon_exit",
            json: [("beacon_major", .int(business.id)), ("beacon_minor", 8)])
        #expect(exited.status == 200, "\(exited)")
        let (entry, payload) = try campaignPush(ann, count: 2)
        #expect(payload["s"]?.int64Value != nil && payload["n"] == entry["id"] && payload["aps"]?["badge"] == 2)

        // An unknown beacon, or another business's major, is refused by name.
        let unknown = try ann.call(
            "DELETE", "/api2/mobile/locations/beacon_exit",
            json: [("beacon_major", .int(business.id)), ("beacon_minor", 9)])
        #expect(unknown.status == 404 && unknown.errorFields?["beacon_minor"] != nil, "\(unknown)")
        let other = try ann.call(
            "DELETE", "/api2/mobile/locations/beacon_exit", json: [("beacon_major", 99_999), ("beacon_minor", 8)])
        #expect(other.status == 422 && other.errorFields?["beacon_major"] != nil, "\(other)")
        // A beacon placed at two locations is refused.
        let taken = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/locations", json: #"{"name":"Queens","beacon_minors":[8]}"#)
        #expect(taken.status == 422 && taken.errorFields?["beacon_minors"] != nil, "\(taken)")
    }
}
