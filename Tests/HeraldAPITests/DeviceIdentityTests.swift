import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// `PUT /api/v1/device/user` and `DELETE /api/v1/device/user`: an install belongs to the user with an `external_id`
/// — only with the business backend's proof — so the user's attributes, segments and messages reach it, until it is
/// told it belongs to nobody.
@Suite("Device API: identity")
struct DeviceIdentityTests {
    /// The business's identity key, through the admin API.
    static func identityKey(_ fixture: ServerFixture, businessID: Int64? = nil) throws -> String {
        let response = try fixture.herald.admin(
            "GET", "/api/admin/businesses/\(businessID ?? fixture.business.id)/identity-key")
        try #require(response.status == 200, "\(response)")
        #expect(response.value?["algorithm"] == "HMAC-SHA256")
        return try #require(response.value?["identity_key"]?.stringValue)
    }

    /// What the business's backend computes for `externalID`.
    static func token(_ externalID: String, key: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: Array(externalID.utf8), key: Array(key.utf8)))
    }

    static func identify(_ phone: DeviceTestClient, _ externalID: String, token: String) throws
        -> TestHTTPClient.Response
    {
        try phone.call(
            "PUT", "/api/v1/device/user",
            json: ["external_id": .string(externalID), "identity_token": .string(token)])
    }

    @Test func anInstallBelongsToTheUserItsBackendVouchesForUntilItLogsOut() throws {
        let fixture = try ServerFixture()
        let key = try Self.identityKey(fixture)
        #expect(key.count == 43)
        #expect(try Self.identityKey(fixture) == key, "the same key every time")
        // The user comes from the import, with attributes; a segment reads them.
        let imported = try AudienceAPITests.importLines(
            fixture, [#"{"external_id":"cust-42","first_name":"Ann","attributes":{"tier":"gold"}}"#])
        #expect(imported.value?["created"] == 1, "\(imported)")
        let segments = "/api/admin/businesses/\(fixture.business.id)/segments/count"
        let gold = #"{"filter":{"attribute":"tier","op":"eq","value":"gold"}}"#
        #expect(try fixture.herald.admin("POST", segments, json: gold).value?["count"] == 0, "no device yet")

        let token = randomAPNsToken()
        let phone = try fixture.install("phone-1", [("push_token", .string(token))])
        let identified = try Self.identify(phone, "cust-42", token: Self.token("cust-42", key: key))
        #expect(identified.status == 200, "\(identified)")
        #expect(identified.value == ["external_id": "cust-42"])
        let user = try #require(
            try fixture.store.read { try $0.users.find(businessID: fixture.business.id, externalIDs: ["cust-42"]) }
                .first)
        #expect(try fixture.device("phone-1")?.userID == user.id)
        #expect(try fixture.herald.admin("POST", segments, json: gold).value?["count"] == 1, "attributes reach it")
        #expect(try fixture.deliveryCount(forNewsTo: user.id) == 1, "news to the user is pushed to it")
        // A campaign's message to the user is the install's to read while it belongs to them.
        let campaign = try fixture.campaign()
        let draft = NotificationDraft(
            businessID: fixture.business.id, userID: user.id, kind: .campaign, event: "campaign", title: "Gold only",
            body: "For you", campaignID: campaign.id, triggerKey: "gold", deviceID: nil,
            message: ["type": "message", "headline": "Gold only", "body": "For you", "sandbox": false],
            pullable: false)
        let entry = try fixture.store.transaction { tx in
            try NotificationService().publish(draft, in: tx, at: WallClock.system.now())
        }
        #expect(try phone.call("GET", "/api/v1/notifications/\(entry.id)").status == 200)

        let loggedOut = try phone.call("DELETE", "/api/v1/device/user")
        #expect(loggedOut.status == 204, "\(loggedOut)")
        #expect(try fixture.device("phone-1")?.userID == nil)
        #expect(try fixture.herald.admin("POST", segments, json: gold).value?["count"] == 0)
        #expect(try fixture.deliveryCount(forNewsTo: user.id) == 0, "user-targeted messages stop")
        #expect(try phone.call("GET", "/api/v1/notifications/\(entry.id)").status == 404)
        #expect(try phone.call("DELETE", "/api/v1/device/user").status == 204, "nobody's already: fine")
        #expect(try phone.pull().isEmpty)
    }

    @Test func anIdWithoutTheBackendsProofClaimsNothing() throws {
        let fixture = try ServerFixture()
        let key = try Self.identityKey(fixture)
        _ = try AudienceAPITests.importLines(fixture, [#"{"external_id":"victim","attributes":{"tier":"gold"}}"#])
        let phone = try fixture.install("attacker")
        let other = try fixture.herald.createBusiness(name: "Other Co")
        let otherKey = try Self.identityKey(fixture, businessID: other.id)
        #expect(otherKey != key, "each business has its own key")
        for token in [
            Self.token("someone-else", key: key), Self.token("victim", key: otherKey),
            Self.token("victim", key: fixture.business.secret), String(repeating: "0", count: 64), "not hex",
        ] {
            let refused = try Self.identify(phone, "victim", token: token)
            #expect(refused.status == 403, "\(refused)")
            #expect(refused.errorFields?["identity_token"] != nil, "\(refused)")
        }
        #expect(try fixture.device("attacker")?.userID == nil)
        // Malformed fields are 422s, naming the field.
        for (body, field) in [
            (["identity_token": "x"] as JSON, "external_id"), (["external_id": "a"], "identity_token"),
            (["external_id": "", "identity_token": "x"], "external_id"),
            (["external_id": " victim", "identity_token": "x"], "external_id"),
            (["external_id": .string(String(repeating: "x", count: 256)), "identity_token": "x"], "external_id"),
            (["external_id": 42, "identity_token": "x"], "external_id"),
            (["external_id": "a", "identity_token": "x", "user_id": 1], "user_id"),
        ] {
            let response = try phone.call("PUT", "/api/v1/device/user", json: body)
            #expect(response.status == 422 && response.errorFields?[field] != nil, "\(body): \(response)")
        }
        // Unsigned: 401. The key is the admin's to read.
        let unsigned = try fixture.herald.client().request(
            "PUT", "/api/v1/device/user", headers: [], json: #"{"external_id":"victim","identity_token":"x"}"#)
        #expect(unsigned.status == 401)
        let anonymous = try fixture.herald.client().request(
            "GET", "/api/admin/businesses/\(fixture.business.id)/identity-key")
        #expect(anonymous.status == 401)
        #expect(try fixture.herald.admin("GET", "/api/admin/businesses/999999/identity-key").status == 404)
    }

    @Test func aUserTheImportDoesNotKnowYetIsMadeAndFilledInLater() throws {
        let fixture = try ServerFixture()
        let key = try Self.identityKey(fixture)
        let phone = try fixture.install("phone-2")
        let tablet = try fixture.install("tablet-2")
        #expect(try Self.identify(phone, "new-customer", token: Self.token("new-customer", key: key)).status == 200)
        #expect(try Self.identify(tablet, "new-customer", token: Self.token("new-customer", key: key)).status == 200)
        let phoneUser = try #require(try fixture.device("phone-2")?.userID)
        #expect(try fixture.device("tablet-2")?.userID == phoneUser, "one user, two installs")
        let imported = try AudienceAPITests.importLines(
            fixture, [#"{"external_id":"new-customer","email":"new@example.com","attributes":{"tier":"gold"}}"#])
        #expect(imported.value?["updated"] == 1 && imported.value?["created"] == 0, "\(imported)")
        let gold = #"{"filter":{"attribute":"tier","op":"eq","value":"gold"}}"#
        let count = try fixture.herald.admin(
            "POST", "/api/admin/businesses/\(fixture.business.id)/segments/count", json: gold)
        #expect(count.value?["count"] == 2, "\(count)")
        // Identified as another user: the install moves to them.
        #expect(try Self.identify(phone, "cust-9", token: Self.token("cust-9", key: key)).status == 200)
        #expect(try fixture.device("phone-2")?.userID != phoneUser)
    }
}
