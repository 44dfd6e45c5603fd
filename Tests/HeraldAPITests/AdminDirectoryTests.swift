import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin console's lists: `GET /api/admin/businesses` (no secret in it) and the device lookup
/// `GET /api/admin/businesses/{id}/devices` (tokens only as a prefix, each device with its latest deliveries).
@Suite("Admin directory")
struct AdminDirectoryTests {
    @Test func theAdminTokenIsRequired() throws {
        let fixture = try ServerFixture()
        let client = fixture.herald.client()
        for target in ["/api/admin/businesses", "/api/admin/businesses/\(fixture.business.id)/devices"] {
            expectError(try client.request("GET", target), 401, ["base"])
            expectError(
                try client.request("GET", target, headers: [("Authorization", "Bearer \(fixture.business.posKey)")]),
                401, ["base"])
        }
    }

    @Test func businessesAreListedByIdInPagesWithoutSecrets() throws {
        let fixture = try ServerFixture(businessName: "Burger Co")
        let second = try fixture.herald.createBusiness(name: "Taco Co")
        let third = try fixture.herald.createBusiness(name: "Pizza Co")
        let key = P256PrivateKey.generate()
        let apns = JSON.object([
            ("key_p8", .string(key.pemRepresentation)), ("key_id", "ABC123DEFG"), ("team_id", "TEAM123456"),
            ("topic", "com.tacoco.app"), ("environment", "sandbox"),
        ])
        #expect(
            try fixture.herald.admin("PUT", "/api/admin/businesses/\(second.id)/apns", json: apns.encodedString).status
                == 200)

        let all = try fixture.herald.admin("GET", "/api/admin/businesses")
        #expect(all.status == 200)
        let data = try #require(all.value?["data"]?.arrayValue)
        #expect(data.compactMap { $0["name"]?.stringValue } == ["Burger Co", "Taco Co", "Pizza Co"])
        #expect(data[0]["client"] == .string(fixture.business.client))
        #expect(data[0]["apns"] == .null && data[0]["fcm"] == .null)
        #expect(data[1]["apns"]?["status"] == "ok")
        #expect(data[1]["apns"]?["key_id"] == "ABC123DEFG")
        #expect(data[1]["apns"]?["topic"] == "com.tacoco.app")
        for business in [fixture.business, second, third] {
            for secret in [business.secret, business.posKey, business.apiKey, business.sandboxAPIKey] {
                #expect(!all.text.contains(secret), "a business secret came out")
            }
        }
        for line in key.pemRepresentation.split(separator: "\n") where !line.hasPrefix("-----") && line.count > 16 {
            #expect(!all.text.contains(line), "APNs key material came out")
        }
        for field in ["secret", "pos_key", "api_key", "sandbox_api_key", "key_p8"] {
            #expect(data.allSatisfy { $0[field] == nil && $0["apns"]?[field] == nil })
        }

        let page = try fixture.herald.admin("GET", "/api/admin/businesses?limit=1&offset=1")
        #expect(page.value?["data"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [second.id])
        expectError(try fixture.herald.admin("GET", "/api/admin/businesses?limit=0"), 422, ["limit"])
        expectError(try fixture.herald.admin("GET", "/api/admin/businesses?offset=-1"), 422, ["offset"])
    }

    @Test func devicesAreFoundByUserEmailInstallIdOrTokenPrefix() throws {
        let fixture = try ServerFixture()
        let annToken = "abcd" + randomAPNsToken().dropFirst(4)
        let ann = try fixture.signedUp("ann@example.com", token: annToken, deviceID: "ann-iphone")
        let bobToken = randomFCMToken()
        let bob = try fixture.signedUp("bob@example.com", token: bobToken, android: true, deviceID: "bob-pixel")
        let other = try fixture.herald.createBusiness(name: "Other Co")
        let stranger = fixture.herald.mobileClient(for: other, deviceID: "ann-iphone")
        #expect(try stranger.signUp(email: "ann@example.com", token: randomAPNsToken()).status == 200)
        let ids = try fixture.news(to: [ann.userID!])

        func lookUp(_ query: String) throws -> [JSON] {
            let response = try fixture.herald.admin(
                "GET", "/api/admin/businesses/\(fixture.business.id)/devices?\(query)")
            try #require(response.status == 200, "\(query): \(response)")
            #expect(!response.text.contains(annToken) && !response.text.contains(bobToken), "a whole token came out")
            return try #require(response.value?["data"]?.arrayValue)
        }
        for query in ["user_id=\(ann.userID!)", "email=ANN@example.com", "install_id=ann-iphone", "token_prefix=abcd"] {
            let found = try lookUp(query)
            #expect(found.count == 1, "\(query)")
            #expect(found.first?["install_id"] == "ann-iphone", "\(query)")
            #expect(found.first?["user_id"] == .int(ann.userID!))
            #expect(found.first?["email"] == "ann@example.com")
            #expect(found.first?["platform"] == "apns")
            #expect(found.first?["token_prefix"] == .string(String(annToken.prefix(8))))
            let deliveries = try #require(found.first?["deliveries"]?.arrayValue)
            // Newest first: the news, then whatever sign-up sent.
            #expect(deliveries.first?["notification_id"] == .int(ids[0]))
            #expect(deliveries.first?["status"] == "queued")
            #expect(deliveries.first?["platform"] == "apns")
        }
        let bobs = try lookUp("token_prefix=\(bobToken.prefix(10))")
        #expect(bobs.compactMap { $0["install_id"]?.stringValue } == ["bob-pixel"])
        #expect(bobs.first?["platform"] == "fcm")
        #expect(bobs.first?["deliveries"]?.arrayValue?.contains { $0["notification_id"] == .int(ids[0]) } == false)
        #expect(try lookUp("user_id=\(bob.userID!)&install_id=ann-iphone").isEmpty)
        #expect(try lookUp("email=nobody@example.com").isEmpty)
        #expect(try lookUp("token_prefix=ffff0000").isEmpty)
        #expect(try lookUp("").compactMap { $0["install_id"]?.stringValue } == ["ann-iphone", "bob-pixel"])
        #expect(try lookUp("limit=1&offset=1").compactMap { $0["install_id"]?.stringValue } == ["bob-pixel"])
        // `_` and `%` are not wildcards.
        #expect(try lookUp("token_prefix=ab_d").isEmpty)

        let path = "/api/admin/businesses/\(fixture.business.id)/devices"
        expectError(try fixture.herald.admin("GET", path + "?token_prefix=abc"), 422, ["token_prefix"])
        expectError(try fixture.herald.admin("GET", path + "?token_prefix=ab%25d"), 422, ["token_prefix"])
        expectError(try fixture.herald.admin("GET", path + "?user_id=ann"), 422, ["user_id"])
        expectError(try fixture.herald.admin("GET", path + "?user_id=1&limit=501"), 422, ["limit"])
        expectError(try fixture.herald.admin("GET", "/api/admin/businesses/999/devices"), 404, ["base"])
    }
}
