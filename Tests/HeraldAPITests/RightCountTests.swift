import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// Answers that count right: a redemption of nothing is refused, a schedule in the past is refused when made and when
/// launched, a body naming a field twice is refused rather than one of them silently winning, and a report does not
/// promise a finish while its pushes wait for a credential nobody has set.
@Suite("Right count")
struct RightCountTests {
    @Test(arguments: [JSON.int(0), .int(-5), .double(0.001), .string("0")])
    func aPOSRedemptionOfNoDiscountIsRefused(discount: JSON) throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let location = try fixture.herald.createLocation(fixture.business)
        let response = try fixture.herald.pos(
            fixture.business, "POST", "/api/pos/redemptions",
            json: ["user_id": .int(ann.userID!), "location_id": .int(location), "discount": discount])
        expectError(response, 422, ["discount"])
        #expect(try fixture.store.read { try $0.inbox.page(userID: ann.userID!, limit: 10, offset: 0) }.count == 1)
    }

    @Test func aScheduleInThePastIsRefusedWhenMadeAndWhenLaunched() throws {
        let clock = TestClock()
        let fixture = try ServerFixture(clock: clock.wallClock)
        let path = "/api/admin/businesses/\(fixture.business.id)/campaigns"
        func campaign(at: String) -> String {
            JSON.object([
                ("name", "Later"), ("message", ["headline": "Soon", "body": "Wait for it"]),
                ("audience", ["all": true]), ("channels", ["inbox"]),
                ("trigger", ["type": "scheduled", "at": .string(at)]),
            ]).encodedString
        }
        expectError(
            try fixture.herald.admin("POST", path, json: campaign(at: "2020-01-01T09:00:00Z")), 422, ["trigger.at"])
        // In an hour: a draft. Two hours later it is in the past, and launching it would send it at once.
        let inAnHour = clock.wallClock.now().adding(.seconds(3600)).iso8601
        let created = try fixture.herald.admin("POST", path, json: campaign(at: inAnHour))
        #expect(created.status == 201, "\(created)")
        let id = try #require(created.value?["id"]?.int64Value)
        clock.advance(by: .seconds(7200))
        expectError(try fixture.herald.admin("POST", "\(path)/\(id)/launch"), 422, ["trigger.at"])
        #expect(try fixture.herald.admin("GET", "\(path)/\(id)").value?["status"] == "draft")
    }

    @Test func aBodyNamingAFieldTwiceIsRefused() throws {
        let fixture = try ServerFixture()
        let admin = try fixture.herald.admin("POST", "/api/admin/businesses", json: #"{"name":"A","name":"B"}"#)
        #expect(admin.status == 400 && admin.errorFields?["base"]?.first?.contains("duplicate key") == true, "\(admin)")
        let app = fixture.app()
        let body =
            #"{"client":"\#(fixture.business.client)","user":{"email":"a@example.com","email":"b@example.com","#
            + #""password":"password123","password_confirmation":"password123"}}"#
        let signUp = try app.call("POST", "/api2/mobile/users", body: body)
        #expect(signUp.status == 400 && signUp.errorFields?["base"] != nil, "\(signUp)")
    }

    @Test func aReportWaitingForAMissingCredentialPromisesNoFinish() throws {
        // Delivery on, and no APNs credential: the push waits for one.
        let herald = try LiveHerald()
        let business = try herald.createBusiness()
        let app = herald.mobileClient(for: business)
        #expect(try app.signUp(email: "ann@example.com", token: randomAPNsToken()).status == 200)
        let path = "/api/admin/businesses/\(business.id)/campaigns"
        let created = try herald.admin(
            "POST", path,
            json: JSON.object([
                ("name", "Hello"), ("message", ["headline": "Hello", "body": "There"]), ("audience", ["all": true]),
                ("channels", ["push"]), ("trigger", ["type": "now"]),
            ]).encodedString)
        let id = try #require(created.value?["id"]?.int64Value, "\(created)")
        #expect(try herald.admin("POST", "\(path)/\(id)/launch").status == 200)
        var pace: JSON?
        try Poll.until(every: .milliseconds(50)) {
            pace = try herald.admin("GET", "\(path)/\(id)/report").value?["pace"]
            return pace?["paced_by"] == "credential"
        }
        #expect(pace?["paced_by"] == "credential", "\(pace ?? .null)")
        #expect(pace?["waiting"] == 1 && pace?["expected_finish_at"] == .null, "\(pace ?? .null)")
    }
}
