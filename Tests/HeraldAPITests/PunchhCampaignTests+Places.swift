import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// A campaign's message to a Punchh app names the right place and the right entry: a Beacon Exit survey is about the
/// beacon's location (not the user's last check-in elsewhere), and a push-only campaign's `n` is an entry the app's
/// `mark_read` counts, so opening the app through it is a direct open.
extension PunchhCampaignTests {
    @Test func aBeaconExitSurveyIsAboutTheBeaconsLocationNotTheLastCheckIn() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        // Ann checked in at Brooklyn (12 points, her first visit).
        let brooklyn = try herald.createLocation(business)
        let checkin = try herald.pos(
            business, "POST", "/api/pos/checkins",
            json: ["user_id": .int(ann.userID!), "location_id": .int(brooklyn), "points": 12, "source": "qr"])
        #expect(checkin.status == 201, "\(checkin)")
        // Queens has a beacon, a geofence around it, and a survey campaign on leaving it.
        let queens = try exitSurvey(at: "Queens", beaconMinors: [9])
        let pushesBefore = apns.pushes.count
        let exited = try ann.call(
            "DELETE", "/api2/mobile/locations/beacon_exit",
            json: [("beacon_major", .int(business.id)), ("beacon_minor", 9)])
        #expect(exited.status == 200, "\(exited)")
        let payload = try #require(apns.waitForPushes(pushesBefore + 1).last).payload
        let userSurvey = try #require(payload["s"]?.int64Value, "\(payload)")
        // The visit asked about is Queens: no check-in there, so no points or first visit to report.
        #expect(payload["p"] == 0 && payload["f"] == 0, "\(payload)")
        let details = try ann.call(
            "GET", "/api2/mobile/survey_details?client=\(business.client)&user_survey_id=\(userSurvey)")
        #expect(details.status == 200, "\(details)")
        #expect(try JSON.parse(details.body)["location_id"]?.int64Value == queens, "\(details)")
    }

    @Test func aPushOnlyCampaignsEntryIsOneMarkReadCountsAsADirectOpen() throws {
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let pushesBefore = apns.pushes.count
        let campaign = try launch([
            "name": "Flash sale", "message": ["headline": "Flash sale", "body": "One hour only"],
            "audience": ["all": true], "channels": ["push"], "trigger": ["type": "now"],
        ])
        let payload = try #require(apns.waitForPushes(pushesBefore + 1).last).payload
        let entry = try #require(payload["n"]?.int64Value, "a Punchh push names its entry: \(payload)")
        // Not in the inbox (the campaign does not use it), but the app opened through the push marks it read.
        let marked = try ann.markRead([entry], event: "app_open_via_push")
        #expect(marked.status == 200, "\(marked)")
        #expect(try JSON.parse(marked.body)["user_notifications"] == [.int(entry)], "\(marked)")
        #expect(try admin("GET", "/campaigns/\(campaign)/report")["direct_opens"] == 1)
        // Another user cannot mark it.
        let bob = try herald.signUpSettled(
            business, email: "bob@example.com", firstName: "Bob", token: randomAPNsToken())
        #expect(try JSON.parse(try bob.markRead([entry], event: "app_open_via_push").body)["user_notifications"] == [])
    }
}
