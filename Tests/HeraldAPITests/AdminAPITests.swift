import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin API — its token, businesses, push credentials, templates, locations, news, deliveries.
@Suite("Admin API")
struct AdminAPITests {
    static let rsaKey = RSAPrivateKey.generate()

    static let contractEvents = [
        "checkin", "checkin_retry_fail", "checkin_retry_success", "checkin_void", "pending_checkin",
        "pos_scanner_checkin",
        "redemption", "points_to_reward", "points_to_currency", "survey", "gift_card", "news", "signup",
        "welcome_offer",
        "offer_expiry",
    ]

    func path(_ fixture: ServerFixture, _ rest: String = "") -> String {
        "/api/admin/businesses/\(fixture.business.id)\(rest)"
    }

    func apnsBody(
        key: JSON = .string(P256PrivateKey.generate().pemRepresentation), keyID: JSON? = "ABC123DEFG",
        teamID: JSON? = "TEAM123456", topic: JSON? = "com.burgerco.app", environment: JSON? = "sandbox"
    ) -> String {
        var pairs: [(key: String, value: JSON)] = [("key_p8", key)]
        if let keyID { pairs.append(("key_id", keyID)) }
        if let teamID { pairs.append(("team_id", teamID)) }
        if let topic { pairs.append(("topic", topic)) }
        if let environment { pairs.append(("environment", environment)) }
        return JSON.object(pairs).encodedString
    }

    func serviceAccount(
        privateKey: String = rsaKey.pemRepresentation, omitting: String? = nil, replacing: (String, JSON)? = nil
    )
        -> JSON
    {
        var pairs: [(key: String, value: JSON)] = [
            ("type", "service_account"), ("project_id", "burger-co-app"), ("private_key_id", "0123456789abcdef"),
            ("private_key", .string(privateKey)), ("client_email", "herald@burger-co-app.iam.gserviceaccount.com"),
            ("client_id", "123456789012345678901"), ("auth_uri", "https://accounts.google.com/o/oauth2/auth"),
            ("token_uri", "https://oauth2.googleapis.com/token"),
        ]
        pairs.removeAll { $0.key == omitting }
        if let replacing, let index = pairs.firstIndex(where: { $0.key == replacing.0 }) {
            pairs[index].value = replacing.1
        }
        return .object(pairs)
    }

    /// The base64 lines of a PEM text: what must never come back out.
    func keyMaterial(_ pem: String) -> [String] {
        pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count > 16 }
    }

    // MARK: - Admin token

    @Test(arguments: [
        ("POST", "/api/admin/businesses"), ("GET", "/api/admin/businesses/1"), ("PUT", "/api/admin/businesses/1/apns"),
        ("PUT", "/api/admin/businesses/1/fcm"), ("PUT", "/api/admin/businesses/1/fcm/quota"),
        ("GET", "/api/admin/businesses/1/templates"),
        ("GET", "/api/admin/businesses/1/templates/checkin"), ("PUT", "/api/admin/businesses/1/templates/checkin"),
        ("POST", "/api/admin/businesses/1/templates/checkin/preview"), ("POST", "/api/admin/businesses/1/locations"),
        ("POST", "/api/admin/businesses/1/notifications"),
        ("GET", "/api/admin/businesses/1/deliveries?notification_id=1"),
        ("GET", "/api/admin/businesses/999"),
    ])
    func theAdminTokenIsRequired(method: String, target: String) throws {
        let fixture = try ServerFixture()
        let client = fixture.herald.client()
        let body = Array(#"{"name":"Evil Co","user_ids":[1],"title":"x","body":"y"}"#.utf8)
        let missing = try client.request(method, target, headers: [("Content-Type", "application/json")], body: body)
        expectError(missing, 401, ["base"])
        #expect(missing.header("www-authenticate") == "Bearer")

        let mobile = try fixture.signedUp("ann@example.com")
        let others = [
            "Bearer wrong-token", "Bearer \(fixture.herald.adminToken)x", "Basic \(fixture.herald.adminToken)",
            fixture.herald.adminToken,
            "Bearer", "Bearer \(fixture.business.posKey)", "Bearer \(fixture.business.secret)",
            "Bearer \(mobile.accessToken ?? "")",
        ]
        for header in others {
            let wrong = try client.request(
                method, target, headers: [("Authorization", header), ("Content-Type", "application/json")], body: body)
            expectError(wrong, 401, ["base"])
        }
        // Nothing was created by the refused calls.
        #expect(try fixture.store.read { try $0.businesses.all() }.map(\.name) == ["Burger Co"])
    }

    // MARK: - Businesses

    @Test func creatingABusinessAnswersItsKeys() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("POST", "/api/admin/businesses", json: #"{"name":"Taco Co"}"#)
        #expect(response.status == 201, "\(response)")
        #expect(response.isJSON)
        let body = try #require(response.value)
        let id = try #require(body["id"]?.int64Value)
        #expect(id != fixture.business.id)
        let client = try #require(body["client"]?.stringValue)
        #expect(client.count == 32 && client.allSatisfy(\.isHexDigit))
        let secret = try #require(body["secret"]?.stringValue)
        #expect(secret.count >= 32)
        let posKey = try #require(body["pos_key"]?.stringValue)
        #expect(posKey.hasPrefix("hpos_") && posKey.count > 32)
        #expect(
            client != fixture.business.client && secret != fixture.business.secret && posKey != fixture.business.posKey)
        #expect(Set([client, secret, posKey]).count == 3)

        // The keys work: an app signing with them can sign up.
        let signUpBody = JSON.object([("client", .string(client)), ("user", signUpUser(email: "ann@example.com"))])
            .encodedString
        let digest = MobileTestClient.digest(target: "/api2/mobile/users", body: Array(signUpBody.utf8), secret: secret)
        let signUp = try fixture.app().call("POST", "/api2/mobile/users", body: signUpBody, digest: digest)
        #expect(signUp.status == 200, "\(signUp)")
        #expect(try fixture.store.read { try $0.users.find(businessID: id, email: "ann@example.com") } != nil)
    }

    @Test(arguments: [#"{}"#, #"{"name":""}"#, #"{"name":"   "}"#, #"{"name":null}"#])
    func aBusinessNeedsAName(_ body: String) throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin("POST", "/api/admin/businesses", json: body), 422, "name", "can't be blank")
    }

    @Test func aBusinessNameMustBeAShortString() throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin("POST", "/api/admin/businesses", json: #"{"name":42}"#), 422, "name",
            "must be a string")
        let long = JSON.object([("name", .string(String(repeating: "a", count: 201)))]).encodedString
        expectError(try fixture.herald.admin("POST", "/api/admin/businesses", json: long), 422, ["name"])
        #expect(try fixture.store.read { try $0.businesses.all() }.count == 1)
    }

    @Test(arguments: [
        #"Bob's "Best" Burgers"#, #"'); DROP TABLE businesses; --"#, #"Back\slash \\ "quoted" \n not a newline"#,
        "Café Crème 🍔 — ☕️", "<script>alert(1)</script>", "{{business}}", "עברית and English",
    ])
    func aHostileNameRoundTrips(_ name: String) throws {
        let fixture = try ServerFixture()
        let created = try fixture.herald.admin(
            "POST", "/api/admin/businesses", json: JSON.object([("name", .string(name))]).encodedString)
        #expect(created.status == 201, "\(created)")
        #expect(created.value?["name"] == .string(name))
        let id = try #require(created.value?["id"]?.int64Value)
        let shown = try fixture.herald.admin("GET", "/api/admin/businesses/\(id)")
        #expect(shown.status == 200)
        #expect(shown.value?["name"] == .string(name))
        // Foundation's parser reads the same text.
        #expect((shown.json as? [String: Any])?["name"] as? String == name)
        #expect(try fixture.store.read { try $0.businesses.all() }.count == 2)
    }

    /// Text meant to be read (a name, a title, a body) never carries control characters or characters that
    /// reorder what follows them; a line is one line. Each is refused on its field, and nothing is written.
    @Test(arguments: [
        ("nul\u{0}byte", "control characters"), ("tab\there", "control characters"), ("line\nbreak", "one line"),
        ("escape\u{1B}[31m", "control characters"), ("c1\u{85}next", "control characters"),
        ("abc\u{202E}txt.exe", "reorder"), ("isolate\u{2066}x\u{2069}", "reorder"),
    ])
    func controlAndReorderingCharactersAreRefusedInDisplayText(_ name: String, _ said: String) throws {
        let fixture = try ServerFixture()
        let created = try fixture.herald.admin(
            "POST", "/api/admin/businesses", json: JSON.object([("name", .string(name))]).encodedString)
        #expect(created.status == 422, "\(created)")
        #expect(created.errorFields?["name"]?.first?.contains(said) == true, "\(created)")
        #expect(try fixture.store.read { try $0.businesses.all() }.count == 1)
        // A body may have line breaks, not the rest.
        let ann = try fixture.signedUp("ann@example.com")
        let news = { (body: String) in
            try fixture.postNews([("user_ids", [.int(ann.userID!)]), ("title", "T"), ("body", .string(body))])
        }
        #expect(try news("two\nlines").status == 202)
        #expect(try news("nul\u{0}byte").status == 422)
    }

    @Test func showingABusinessNeverShowsItsSecrets() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("GET", path(fixture))
        #expect(response.status == 200, "\(response)")
        let body = try #require(response.value)
        #expect(body["id"] == .int(fixture.business.id))
        #expect(body["name"] == "Burger Co")
        #expect(body["client"] == .string(fixture.business.client))
        #expect(body["apns"] == .null)
        #expect(body["fcm"] == .null)
        #expect(body["created_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
        #expect(body["secret"] == nil)
        #expect(body["pos_key"] == nil)
        #expect(!response.text.contains(fixture.business.secret))
        #expect(!response.text.contains(fixture.business.posKey))
        #expect(!response.text.contains(AccessTokens.hash(fixture.business.posKey)))
    }

    @Test(arguments: ["999", "0", "-1", "abc", "99999999999999999999"])
    func anUnknownBusinessIs404(_ id: String) throws {
        let fixture = try ServerFixture()
        expectError(try fixture.herald.admin("GET", "/api/admin/businesses/\(id)"), 404, ["base"])
        expectError(
            try fixture.herald.admin("PUT", "/api/admin/businesses/\(id)/apns", json: apnsBody()), 404, ["base"])
        expectError(
            try fixture.herald.admin("POST", "/api/admin/businesses/\(id)/locations", json: #"{"name":"X"}"#), 404,
            ["base"])
        expectError(try fixture.herald.admin("GET", "/api/admin/businesses/\(id)/templates"), 404, ["base"])
    }
}
