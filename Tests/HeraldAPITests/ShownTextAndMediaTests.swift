import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// What reaches a screen follows one rule on every API: display text has no control characters and no characters
/// that reorder it (`DisplayText`, the admin API's rule), refused with a 422 naming the field; media a phone downloads
/// is https, and a `{url, type}`'s file is of its type (`MediaInput`), refused by name too.
@Suite("Shown text and media")
struct ShownTextAndMediaTests {
    /// A NUL, an escape, a C1 control, a right-to-left override, an isolate.
    static let hostile = ["Ann\u{0}", "Ann\u{1B}[31m", "Ann\u{85}", "\u{202E}nnA", "A\u{2066}nn"]

    @Test(arguments: hostile)
    func mobileNamesAreDisplayText(name: String) throws {
        let fixture = try ServerFixture()
        let app = fixture.app()
        let user = JSON.object(
            (signUpUser(email: "ann@example.com").objectValue ?? []).map {
                $0.key == "first_name" ? (key: $0.key, value: .string(name)) : $0
            })
        let signUp = try app.call("POST", "/api2/mobile/users", json: [("user", user)])
        expectError(signUp, 422, ["first_name"])
        let ann = try fixture.signedUp("ann@example.com")
        expectError(try ann.update([("last_name", .string(name))]), 422, ["last_name"])
    }

    @Test(arguments: hostile)
    func importedNamesAreDisplayText(name: String) throws {
        let fixture = try ServerFixture()
        let line = JSON.object([("external_id", "crm-1"), ("first_name", .string(name))]).encodedString
        let response = try AudienceAPITests.importLines(fixture, [line])
        #expect(response.status == 200, "\(response)")
        #expect(AudienceAPITests.rejected(response).map(\.fields) == [["first_name"]], "\(response)")
    }

    @Test(arguments: hostile)
    func posIdentifiersThatTravelInPushesAreDisplayText(text: String) throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let location = try fixture.herald.createLocation(fixture.business)
        let checkin = try fixture.herald.pos(
            fixture.business, "POST", "/api/pos/checkins",
            json: [
                "user_id": .int(ann.userID!), "location_id": .int(location), "points": 5, "source": "qr",
                "transaction_id": .string(text),
            ])
        expectError(checkin, 422, ["transaction_id"])
        let card = try fixture.herald.pos(
            fixture.business, "POST", "/api/webhooks/gift_cards",
            json: ["uuid": .string(text), "user_id": .int(ann.userID!), "balance": 10])
        expectError(card, 422, ["uuid"])
    }

    @Test(arguments: ["\u{202E}iPhone", "iPhone\u{85}"])
    func deviceDetailsAreDisplayText(model: String) throws {
        let fixture = try ServerFixture()
        let phone = fixture.herald.deviceClient()
        expectError(
            try phone.register(apiKey: fixture.business.apiKey, [("device_model", .string(model))]), 422,
            ["device_model"])
        #expect(try phone.register(apiKey: fixture.business.apiKey).status == 201)
        let segments = try phone.call("PUT", "/api/v1/device/segments", json: ["segments": [.string(model)]])
        expectError(segments, 422, ["segments[0]"])
    }

    // MARK: - Media

    @Test func newsMediaMustBeHTTPSAndOfItsType() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        func news(_ url: String, _ type: String) throws -> TestHTTPClient.Response {
            try fixture.postNews([
                ("user_ids", [.int(ann.userID!)]), ("title", "New"), ("body", "Menu"),
                ("media", ["url": .string(url), "type": .string(type)]),
            ])
        }
        // A video named as a picture: iOS would save it as .jpg and fail to attach it.
        expectError(try news("https://cdn.example.com/clip.mp4", "jpg"), 422, ["media.url"])
        expectError(try news("https://cdn.example.com/picture", "jpg"), 422, ["media.url"])
        let http = try news("http://cdn.example.com/burger.jpg", "jpg")
        expectError(http, 422, ["media.url"])
        #expect(http.errorFields?["media.url"]?.first?.contains("https") == true, "\(http)")
        #expect(try news("https://cdn.example.com/burger.jpeg", "jpg").status == 202)
    }

    @Test func offerAndCampaignMediaMustBeHTTPS() throws {
        let fixture = try ServerFixture()
        let base = "/api/admin/businesses/\(fixture.business.id)"
        let offer = try fixture.herald.admin(
            "POST", base + "/offers",
            json: #"{"name":"Fries","discount":3,"image_url":"http://cdn.example.com/fries.png"}"#)
        expectError(offer, 422, ["image_url"])
        let offerMedia = try fixture.herald.admin(
            "POST", base + "/offers",
            json: #"{"name":"Fries","discount":3,"media":{"url":"https://cdn.example.com/fries.mp4","type":"png"}}"#)
        expectError(offerMedia, 422, ["media.url"])
        let campaign = try fixture.herald.admin(
            "POST", base + "/campaigns",
            json: JSON.object([
                ("name", "Soup"),
                (
                    "message",
                    [
                        "headline": "Soup", "body": "Hot",
                        "media": ["type": "image", "url": "http://cdn.example.com/soup.jpg"],
                    ]
                ),
                ("audience", ["all": true]), ("channels", ["push"]), ("trigger", ["type": "now"]),
            ]).encodedString)
        expectError(campaign, 422, ["message.media.url"])
        let template = try fixture.herald.admin(
            "PUT", base + "/templates/news",
            json: #"{"media":{"url":"http://cdn.example.com/news.png","type":"png"}}"#)
        expectError(template, 422, ["media.url"])
    }

    @Test func mediaHostedOverHTTPIsFlaggedWhereItsLinkIsMade() throws {
        let fixture = try ServerFixture()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 16)
        let uploaded = try fixture.herald.client().request(
            "POST", "/api/admin/businesses/\(fixture.business.id)/media",
            headers: [("Authorization", "Bearer \(fixture.herald.adminToken)"), ("Content-Type", "image/png")],
            body: png)
        #expect(uploaded.status == 201, "\(uploaded)")
        #expect(uploaded.value?["url"]?.stringValue?.hasPrefix("http://") == true)
        #expect(uploaded.value?["warning"]?.stringValue?.contains("https") == true, "\(uploaded)")
        // Still accepted in a message: Herald's own link, until --public-url names an https address.
        let ann = try fixture.signedUp("ann@example.com")
        let url = try #require(uploaded.value?["url"])
        #expect(
            try fixture.postNews([
                ("user_ids", [.int(ann.userID!)]), ("title", "New"), ("body", "Menu"),
                ("media", ["url": url, "type": "png"]),
            ]).status == 202)
    }
}
