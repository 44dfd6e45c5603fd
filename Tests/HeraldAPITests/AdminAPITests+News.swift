import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin API on locations, news and deliveries.
extension AdminAPITests {
    // MARK: - Locations

    @Test func creatingALocationAnswersItsID() throws {
        let fixture = try ServerFixture()
        let first = try fixture.herald.admin(
            "POST", path(fixture, "/locations"), json: #"{"name":"Brooklyn Location","store_number":"42"}"#)
        #expect(first.status == 201, "\(first)")
        let id = try #require(first.value?["id"]?.int64Value)
        #expect(first.value?["name"] == "Brooklyn Location")
        #expect(first.value?["store_number"] == "42")
        let second = try fixture.herald.admin(
            "POST", path(fixture, "/locations"), json: #"{"name":"Queens","store_number":7}"#)
        #expect(second.status == 201)
        #expect(second.value?["id"]?.int64Value != id)
        #expect(second.value?["store_number"] == "7")
        let third = try fixture.herald.admin("POST", path(fixture, "/locations"), json: #"{"name":"Bronx"}"#)
        #expect(third.status == 201)
        #expect(third.value?["store_number"] == .null)
        #expect(
            try fixture.store.read { try $0.locations.find(businessID: fixture.business.id, id: id) }?.name
                == "Brooklyn Location")
    }

    @Test(arguments: [#"{}"#, #"{"name":""}"#, #"{"store_number":"1"}"#])
    func aLocationNeedsAName(_ body: String) throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin("POST", path(fixture, "/locations"), json: body), 422, "name", "can't be blank")
    }

    @Test func aBadStoreNumberIs422() throws {
        let fixture = try ServerFixture()
        let long = JSON.object([("name", "X"), ("store_number", .string(String(repeating: "9", count: 51)))])
            .encodedString
        expectError(try fixture.herald.admin("POST", path(fixture, "/locations"), json: long), 422, ["store_number"])
        expectError(
            try fixture.herald.admin(
                "POST", path(fixture, "/locations"), json: #"{"name":"X","store_number":{"n":1}}"#), 422,
            ["store_number"])
    }

    // MARK: - News

    @Test func newsGoesToEachUsersInbox() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let bob = try fixture.signedUp("bob@example.com")
        let response = try fixture.postNews([
            ("user_ids", [.int(ann.userID!), .int(bob.userID!)]), ("title", "Our new menu"),
            ("subtitle", "Fresh today"),
            ("body", "Try the new burger today!"),
        ])
        #expect(response.status == 202, "\(response)")
        let list = try #require(response.value?["notification_ids"]?.arrayValue)
        let ids = list.compactMap(\.int64Value)
        #expect(ids.count == 2)
        for app in [ann, bob] {
            let newest = try #require(try app.entries().first)
            #expect(ids.contains(newest["id"]?.int64Value ?? -1))
            #expect(newest["kind"] == "news")
            #expect(newest["title"] == "Our new menu")
            #expect(newest["subtitle"] == "Fresh today")
            #expect(newest["message"] == "Try the new burger today!")
        }
    }

    @Test func newsCarriesACallToAction() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let response = try fixture.postNews([
            ("user_ids", [.int(ann.userID!)]), ("title", "Our new menu"), ("body", "Try it"),
            ("cta", .object([("label", "See the menu"), ("url", "https://example.com/menu")])),
        ])
        #expect(response.status == 202, "\(response)")
        let newest = try #require(try ann.entries().first)
        #expect(newest["payload"]?["cta"]?["url"] == "https://example.com/menu", "\(newest)")
        #expect(newest["payload"]?["cta"]?["label"] == "See the menu")
    }

    @Test func newsRefusesFieldsItDoesNotKnowAndUnsafeLinks() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let base: [(String, JSON)] = [("user_ids", [.int(ann.userID!)]), ("title", "Hi"), ("body", "There")]
        expectError(try fixture.postNews(base + [("badge", 3)]), 422, ["badge"])
        expectError(
            try fixture.postNews(base + [("cta", .object([("url", "javascript:alert(1)")]))]), 422, ["cta.url"])
        expectError(try fixture.postNews(base + [("cta", "https://example.com")]), 422, ["cta"])
        #expect(try ann.entries().count == 1)
    }

    @Test func newsTextIsNotTreatedAsATemplate() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        try fixture.news(to: [ann.userID!], title: "{{first_name}}", body: "50% off {{business}} }} {{")
        let newest = try #require(try ann.entries().first)
        #expect(newest["title"] == "{{first_name}}")
        #expect(newest["message"] == "50% off {{business}} }} {{")
    }

    @Test func newsToAnUnknownUserIs422AndSendsNothing() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let response = try fixture.postNews([
            ("user_ids", [.int(ann.userID!), 424_242]), ("title", "Hi"), ("body", "There"),
        ])
        expectError(response, 422, ["user_ids"])
        #expect(response.errorFields?["user_ids"]?.first?.contains("424242") == true, "\(response)")
        #expect(try ann.entries().count == 1)
    }

    @Test func newsToAnotherBusinesssUserIs422() throws {
        let fixture = try ServerFixture()
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        let theirs = fixture.herald.mobileClient(for: other)
        #expect(try theirs.signUp(email: "ann@example.com").status == 200)
        let response = try fixture.postNews([("user_ids", [.int(theirs.userID!)]), ("title", "Hi"), ("body", "There")])
        expectError(response, 422, ["user_ids"])
        #expect(try theirs.entries().count == 1)
    }

    static let badUserIDs: [JSON] = [
        .array([]), .null, .string("1"), .object([("id", .int(1))]), .array([.string("1")]), .array([.double(1.5)]),
    ]

    @Test(arguments: badUserIDs)
    func newsNeedsAListOfUserIDs(_ userIDs: JSON) throws {
        let fixture = try ServerFixture()
        _ = try fixture.signedUp("ann@example.com")
        expectError(
            try fixture.postNews([("user_ids", userIDs), ("title", "Hi"), ("body", "There")]), 422, ["user_ids"])
    }

    @Test func newsToTheSameUserTwiceIsOneItem() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let bob = try fixture.signedUp("bob@example.com")
        let ids = try fixture.news(to: [bob.userID!, ann.userID!, bob.userID!])
        #expect(ids.count == 2)
        #expect(
            Set(ids)
                == Set(
                    [try ann.entries()[0]["id"]?.int64Value, try bob.entries()[0]["id"]?.int64Value].compactMap { $0 }))
        #expect(try bob.entries().count == 2)
    }

    @Test func newsNeedsATitleAndABody() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let response = try fixture.postNews([("user_ids", [.int(ann.userID!)])])
        expectError(response, 422, ["title", "body"])
        expectError(
            try fixture.postNews([("user_ids", [.int(ann.userID!)]), ("title", "x"), ("body", "y"), ("subtitle", 3)]),
            422, ["subtitle"])
    }

    @Test(arguments: [
        JSON.string(""), .string(String(repeating: "é", count: 33)), .int(5), .array([]), .string("menu\r\nx: y"),
        .string("nul\u{0}"),
    ])
    func aCollapseIDIsOneTo64Bytes(_ collapseID: JSON) throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let fields: [(String, JSON)] = [("user_ids", [.int(ann.userID!)]), ("title", "x"), ("body", "y")]
        expectError(try fixture.postNews(fields + [("collapse_id", collapseID)]), 422, ["collapse_id"])
        #expect(try ann.entries().count == 1, "nothing was sent")
        let fits = try fixture.postNews(fields + [("collapse_id", .string(String(repeating: "é", count: 32)))])
        #expect(fits.status == 202, "64 bytes fit")
    }

    static let badMedia: [(String, JSON, String)] = [
        (
            "media", .object([("url", .string("https://cdn.example.com/a.bmp")), ("type", .string("bmp"))]),
            "media.type"
        ),
        ("media", .object([("url", .string("https://cdn.example.com/a.jpg"))]), "media.type"),
        ("media", .object([("url", .string("ftp://cdn.example.com/a.jpg")), ("type", .string("jpg"))]), "media.url"),
        (
            "media", .object([("url", .string("https://cdn.example.com/a b.jpg")), ("type", .string("jpg"))]),
            "media.url"
        ),
        ("media", .object([("type", .string("jpg"))]), "media.url"),
        ("media", .string("https://cdn.example.com/a.jpg"), "media"),
        ("media", .object([("url", .string("https://")), ("type", .string("jpg"))]), "media.url"),
        ("media", .object([("url", .string("https:/cdn.example.com/a.jpg")), ("type", .string("jpg"))]), "media.url"),
        ("media", .object([("url", .string("http://%20/a.jpg")), ("type", .string("jpg"))]), "media.url"),
        ("media", .object([("url", .string("http://x:99999/a.jpg")), ("type", .string("jpg"))]), "media.url"),
        ("media", .object([("url", .string("http://x/a\u{1}.jpg")), ("type", .string("jpg"))]), "media.url"),
    ]

    @Test(arguments: badMedia)
    func badMediaIs422(field: String, media: JSON, errorField: String) throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let response = try fixture.postNews([
            ("user_ids", [.int(ann.userID!)]), ("title", "Hi"), ("body", "There"), (field, media),
        ])
        expectError(response, 422, [errorField])
        #expect(try ann.entries().count == 1)
    }

    @Test(arguments: [("jpg", "jpg"), ("PNG", "png"), ("gif", "gif"), ("mp4", "mp4"), ("m4a", "m4a")])
    func goodMediaReachesTheInbox(type: String, stored: String) throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let url = "https://cdn.example.com/menu/burger.\(type)?v=2"
        try fixture.news(
            to: [ann.userID!], extra: [("media", .object([("url", .string(url)), ("type", .string(type))]))])
        let newest = try #require(try ann.entries().first)
        #expect(newest["media"] == .object([("url", .string(url)), ("type", .string(stored))]))
    }

    // MARK: - Deliveries

    @Test func deliveriesListTheJobsOfANotification() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        let ids = try fixture.news(to: [ann.userID!])
        let deliveries = try fixture.deliveries(notificationID: ids[0])
        #expect(deliveries.count == 1)
        let job = try #require(deliveries.first)
        #expect(job["id"]?.int64Value != nil)
        #expect(job["notification_id"] == .int(ids[0]))
        #expect(job["platform"] == "apns")
        #expect(job["status"] == "queued")
        #expect(job["attempts"] == .int(0))
        #expect(job["apns_id"]?.stringValue?.count == 36)
        #expect(job["next_attempt_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
        // No token ever appears in the admin view.
        let token = try #require(try fixture.store.read { try $0.devices.all(userID: ann.userID!) }.first?.token)
        let raw = try fixture.herald.admin("GET", path(fixture, "/deliveries?notification_id=\(ids[0])"))
        #expect(!raw.text.contains(token))
    }

    @Test(arguments: ["", "?notification_id=", "?notification_id=abc", "?notification_id=1.5", "?id=1"])
    func deliveriesNeedANotificationID(_ query: String) throws {
        let fixture = try ServerFixture()
        expectError(try fixture.herald.admin("GET", path(fixture, "/deliveries\(query)")), 422, ["notification_id"])
    }

    @Test func deliveriesOfAnotherBusinesssNotificationAre404() throws {
        let fixture = try ServerFixture()
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        let theirs = fixture.herald.mobileClient(for: other)
        #expect(try theirs.signUp(email: "ann@example.com", token: randomAPNsToken()).status == 200)
        let theirID = try #require(try theirs.entries().first?["id"]?.int64Value)
        expectError(
            try fixture.herald.admin("GET", path(fixture, "/deliveries?notification_id=\(theirID)")), 404, ["base"])
        expectError(try fixture.herald.admin("GET", path(fixture, "/deliveries?notification_id=999999")), 404, ["base"])
        // Its own business sees it.
        #expect(
            try fixture.herald.admin("GET", "/api/admin/businesses/\(other.id)/deliveries?notification_id=\(theirID)")
                .status == 200)
    }
}
