import Foundation
import HeraldDelivery
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The defects a seed-by-seed audit of the three guides found, each pinned by the request that showed it.
extension CampaignDeviceTests {
    @Test func aMediaTypeOutsideTheListOrAYouTubeLinkThatIsNotYouTubeIsRefusedOnItsField() throws {
        func campaign(_ media: JSON) throws -> TestHTTPClient.Response {
            try fixture.herald.admin(
                "POST", "\(businessPath)/campaigns",
                json: JSON.object([
                    ("name", "M"), ("message", ["headline": "H", "body": "B", "media": media]),
                    ("audience", ["all": true]), ("channels", ["pull"]), ("trigger", ["type": "now"]),
                ]).encodedString)
        }
        let hologram = try campaign(["type": "hologram", "url": "https://cdn.example.com/h.bin"])
        #expect(hologram.status == 422 && hologram.errorFields?["message.media.type"] != nil, "\(hologram)")
        let notYouTube = try campaign(["type": "youtube", "url": "https://vimeo.com/123456"])
        #expect(notYouTube.status == 422 && notYouTube.errorFields?["message.media.url"] != nil, "\(notYouTube)")
        // What iOS cannot attach as its kind is refused rather than sent as a type it is not.
        for (kind, url) in [
            ("image", "https://cdn.example.com/clip.mp4"), ("audio", "https://cdn.example.com/a.webm"),
            ("video", "https://cdn.example.com/v.mov"),
        ] {
            let refused = try campaign(["type": .string(kind), "url": .string(url)])
            #expect(refused.status == 422 && refused.errorFields?["message.media.url"] != nil, "\(kind) \(url)")
        }
        #expect(try campaign(["type": "youtube", "url": "https://youtu.be/dQw4w9WgXcQ"]).status == 201)
        #expect(try campaign(["type": "video", "url": "https://cdn.example.com/v.mp4"]).status == 201)
    }

    @Test func aScheduledTimeOutsideSaneYearsOrOffsetsIsRefused() throws {
        for at in ["9999-01-01T00:00:00Z", "2026-12-31T18:00:00+99:99", "1970-01-01T00:00:00Z"] {
            let response = try fixture.herald.admin(
                "POST", "\(businessPath)/campaigns",
                json: JSON.object([
                    ("name", "T"), ("message", ["headline": "H", "body": "B"]), ("audience", ["all": true]),
                    ("channels", ["pull"]), ("trigger", ["type": "scheduled", "at": .string(at)]),
                ]).encodedString)
            #expect(response.status == 422 && response.errorFields?["trigger.at"] != nil, "\(at): \(response)")
        }
    }

    @Test func aSandboxHeadlineIsMarkedOnce() throws {
        let phone = try fixture.install(sandbox: true)
        let approved = try fixture.herald.admin(
            "POST", "\(businessPath)/test-devices",
            json: JSON.object([("approval_code", phone.testDevice?["approval_code"] ?? .null)]).encodedString)
        try #require(approved.status == 200, "\(approved)")
        let id = try create([
            "name": "S", "message": ["headline": "Sandbox · Soup", "body": "B"], "audience": ["all": true],
            "channels": ["pull"], "trigger": ["type": "now"], "sandbox": true,
        ])
        try launch(id)
        try waitUntilCompleted(id)
        let pulled = try #require(try phone.pull().first)
        #expect(pulled["headline"] == "Sandbox · Soup", "\(pulled)")
    }

    @Test func theSameIdempotencyKeyWithAnotherVisitIsRefused() throws {
        let phone = try fixture.install()
        let (geofence, _) = try walkBy()
        let first = entering(geofence)
        #expect(try visit(phone, first, key: "visit-1").status == 200)
        #expect(try visit(phone, first, key: "visit-1").status == 200, "the same request again: the same answer")
        var other = first
        if case .object(var pairs) = other {
            pairs.removeAll { $0.key == "event" }
            pairs.append(("event", "exit"))
            other = .object(pairs)
        }
        let reused = try visit(phone, other, key: "visit-1")
        #expect(reused.status == 422 && reused.errorFields?["idempotency_key_reused"] != nil, "\(reused)")
    }
}

/// The audit's defects on the admin and mobile APIs.
@Suite("Seed audit: admin and mobile")
struct SeedAuditTests {
    let fixture: ServerFixture
    init() throws { fixture = try ServerFixture() }

    @Test func aTemplatePreviewRefusesFieldsItDoesNotRead() throws {
        let path = "/api/admin/businesses/\(fixture.business.id)/templates/news/preview"
        let unknown = try fixture.herald.admin("POST", path, json: #"{"values":{},"colour":"red"}"#)
        #expect(unknown.status == 422 && unknown.errorFields?["colour"] != nil, "\(unknown)")
        let inner = try fixture.herald.admin("POST", path, json: #"{"template":{"titel":"typo"}}"#)
        #expect(inner.status == 422 && inner.errorFields?["template.titel"] != nil, "\(inner)")
        #expect(try fixture.herald.admin("POST", path, json: #"{"template":{"title":"Hi"}}"#).status == 200)
    }

    @Test func theSignUpPushCarriesTheUser() throws {
        let apns = RecordingPushProvider(platform: .apns)
        let herald = try LiveHerald(providers: { _ in [apns] })
        let business = try herald.createBusiness()
        let ann = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let push = try #require(apns.waitForPushes(1).first)
        #expect(push.payload["u"]?.int64Value == ann.userID, "\(push.payload)")
    }

    @Test func aUserSurveyIDThatIsNotANumberIsInvalidNotMissing() throws {
        let ann = try fixture.signedUp("ann@example.com")
        let client = fixture.business.client
        let invalid = try ann.call("GET", "/api2/mobile/survey_details?client=\(client)&user_survey_id=abc")
        #expect(invalid.status == 422 && invalid.errorFields?["user_survey_id"]?.first?.hasPrefix("is invalid") == true)
        let missing = try ann.call("GET", "/api2/mobile/survey_details?client=\(client)")
        #expect(missing.errorFields?["user_survey_id"]?.first?.hasPrefix("is required") == true, "\(missing)")
    }

    @Test func anFCMDeliveryShowsNoAPNsID() throws {
        let bob = try fixture.signedUp("bob@example.com", token: randomFCMToken(), android: true)
        let id = try #require(try fixture.news(to: [bob.userID!]).first)
        let delivery = try #require(try fixture.deliveries(notificationID: id).first)
        #expect(delivery["platform"] == "fcm" && delivery["apns_id"] == .null, "\(delivery)")
    }
}
