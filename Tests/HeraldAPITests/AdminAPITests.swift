import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin API — its token, businesses, push credentials, templates, locations, news, deliveries.
@Suite("Admin API")
struct AdminAPITests {
    private static let rsaKey = RSAPrivateKey.generate()

    private static let contractEvents = [
        "checkin", "checkin_retry_fail", "checkin_retry_success", "checkin_void", "pending_checkin",
        "pos_scanner_checkin",
        "redemption", "points_to_reward", "points_to_currency", "survey", "gift_card", "news", "signup",
        "welcome_offer",
        "offer_expiry",
    ]

    private func path(_ fixture: ServerFixture, _ rest: String = "") -> String {
        "/api/admin/businesses/\(fixture.business.id)\(rest)"
    }

    private func apnsBody(
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

    private func serviceAccount(
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
    private func keyMaterial(_ pem: String) -> [String] {
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

    // MARK: - APNs credentials

    @Test func aP256KeyIsAcceptedAndNeverShownAgain() throws {
        let fixture = try ServerFixture()
        let pem = P256PrivateKey.generate().pemRepresentation
        let response = try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody(key: .string(pem)))
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["key_id"] == "ABC123DEFG")
        #expect(response.value?["team_id"] == "TEAM123456")
        #expect(response.value?["topic"] == "com.burgerco.app")
        #expect(response.value?["environment"] == "sandbox")
        #expect(response.value?["status"] == "ok")
        #expect(!response.text.contains("PRIVATE KEY"))

        let shown = try fixture.herald.admin("GET", path(fixture))
        let apns = try #require(shown.value?["apns"])
        #expect(apns["key_id"] == "ABC123DEFG")
        #expect(apns["team_id"] == "TEAM123456")
        #expect(apns["topic"] == "com.burgerco.app")
        #expect(apns["environment"] == "sandbox")
        #expect(apns["status"] == "ok")
        #expect(apns["key_p8"] == nil)
        #expect(!shown.text.contains("PRIVATE KEY"))
        for line in keyMaterial(pem) { #expect(!shown.text.contains(line)) }
    }

    @Test func secretsAreSealedAtRest() throws {
        let fixture = try ServerFixture()
        let pem = P256PrivateKey.generate().pemRepresentation
        #expect(
            try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody(key: .string(pem))).status == 200)
        #expect(
            try fixture.herald.admin(
                "PUT", path(fixture, "/fcm"), json: JSON.object([("service_account", serviceAccount())]).encodedString
            ).status == 200)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.herald.directory.path)
        let needles =
            keyMaterial(pem) + keyMaterial(Self.rsaKey.pemRepresentation) + [
                fixture.business.secret, fixture.business.posKey,
            ]
        for file in files {
            guard let data = FileManager.default.contents(atPath: fixture.herald.directory.file(file)) else { continue }
            let bytes = [UInt8](data)
            for needle in needles {
                #expect(bytes.firstRange(of: Array(needle.utf8)) == nil, "\(file) holds a secret in clear")
            }
        }
    }

    @Test func theEnvironmentDefaultsToProduction() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody(environment: nil))
        #expect(response.status == 200, "\(response)")
        #expect(try fixture.herald.admin("GET", path(fixture)).value?["apns"]?["environment"] == "production")
    }

    @Test func anRSAKeyIsRefusedForAPNs() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/apns"), json: apnsBody(key: .string(Self.rsaKey.pemRepresentation)))
        expectError(response, 422, ["key_p8"])
        #expect(!response.text.contains("PRIVATE KEY"))
        #expect(try fixture.herald.admin("GET", path(fixture)).value?["apns"] == .null)
    }

    @Test(arguments: [
        "garbage", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----", String(repeating: "A", count: 9_000),
    ])
    func garbageIsRefusedAsAKey(_ key: String) throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody(key: .string(key)))
        expectError(response, 422, ["key_p8"])
        // The refusal does not echo the key text.
        if key.count > 20 { #expect(!response.text.contains(key)) }
    }

    @Test func aTruncatedP256KeyIsRefused() throws {
        let fixture = try ServerFixture()
        let pem = P256PrivateKey.generate().pemRepresentation
        let lines = pem.split(separator: "\n")
        let truncated = ([lines[0], lines[1].dropLast(8)] + lines.suffix(1)).joined(separator: "\n")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody(key: .string(truncated))), 422,
            ["key_p8"])
    }

    static let badAPNsFields: [(String, JSON)] = [
        ("key_id", .string("ABC123")), ("key_id", .string("ABC123DEFGH")), ("key_id", .string("abc123defg")),
        ("key_id", .string("ABC-23DEFG")), ("key_id", .int(1_234_567_890)),
        ("team_id", .string("TEAM12345")), ("team_id", .string("TEAM1234567")), ("team_id", .string("team123456")),
        ("team_id", .string("")),
        ("topic", .string("burgerco")), ("topic", .string("com..burgerco")), ("topic", .string("com.burger co.app")),
        ("topic", .string("")),
        ("topic", .null),
        ("environment", .string("staging")), ("environment", .string("Production")), ("environment", .int(1)),
    ]

    @Test(arguments: badAPNsFields)
    func aBadAPNsFieldIs422NamingIt(field: String, value: JSON) throws {
        let fixture = try ServerFixture()
        let body: String
        switch field {
        case "key_id": body = apnsBody(keyID: value)
        case "team_id": body = apnsBody(teamID: value)
        case "topic": body = apnsBody(topic: value)
        default: body = apnsBody(environment: value)
        }
        expectError(try fixture.herald.admin("PUT", path(fixture, "/apns"), json: body), 422, [field])
        #expect(try fixture.herald.admin("GET", path(fixture)).value?["apns"] == .null)
    }

    @Test func missingAPNsFieldsAreEachNamed() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("PUT", path(fixture, "/apns"), json: #"{"environment":"staging"}"#)
        expectError(response, 422, ["key_p8", "key_id", "team_id", "topic", "environment"])
        #expect(response.errorFields?["topic"] == ["can't be blank"])
        #expect(response.errorFields?["key_p8"] == ["can't be blank"])
    }

    @Test func replacingTheAPNsKeyKeepsOnlyTheNewSettings() throws {
        let fixture = try ServerFixture()
        #expect(try fixture.herald.admin("PUT", path(fixture, "/apns"), json: apnsBody()).status == 200)
        #expect(
            try fixture.herald.admin(
                "PUT", path(fixture, "/apns"), json: apnsBody(keyID: "ZZZ999YYY8", environment: "production")
            ).status == 200)
        let apns = try fixture.herald.admin("GET", path(fixture)).value?["apns"]
        #expect(apns?["key_id"] == "ZZZ999YYY8")
        #expect(apns?["environment"] == "production")
    }

    // MARK: - FCM credentials

    @Test func aServiceAccountIsAcceptedAndItsKeyNeverShown() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/fcm"), json: JSON.object([("service_account", serviceAccount())]).encodedString)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["project_id"] == "burger-co-app")
        #expect(response.value?["client_email"] == "herald@burger-co-app.iam.gserviceaccount.com")
        #expect(response.value?["status"] == "ok")
        #expect(!response.text.contains("PRIVATE KEY"))

        let shown = try fixture.herald.admin("GET", path(fixture))
        let fcm = try #require(shown.value?["fcm"])
        #expect(fcm["project_id"] == "burger-co-app")
        #expect(fcm["client_email"] == "herald@burger-co-app.iam.gserviceaccount.com")
        #expect(fcm["status"] == "ok")
        #expect(fcm["private_key"] == nil)
        #expect(!shown.text.contains("PRIVATE KEY"))
        for line in keyMaterial(Self.rsaKey.pemRepresentation) { #expect(!shown.text.contains(line)) }
    }

    @Test func aServiceAccountMayComeAsAStringOfJSON() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("service_account", .string(serviceAccount().encodedString))]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/fcm"), json: body)
        #expect(response.status == 200, "\(response)")
        #expect(try fixture.herald.admin("GET", path(fixture)).value?["fcm"]?["project_id"] == "burger-co-app")
    }

    @Test(arguments: ["project_id", "client_email", "private_key", "token_uri"])
    func aMissingServiceAccountFieldIs422NamingIt(_ field: String) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("service_account", serviceAccount(omitting: field))]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/fcm"), json: body)
        expectError(response, 422, ["service_account.\(field)"])
        #expect(try fixture.herald.admin("GET", path(fixture)).value?["fcm"] == .null)
    }

    @Test func anECKeyIsRefusedAsTheServiceAccountKey() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([
            ("service_account", serviceAccount(privateKey: P256PrivateKey.generate().pemRepresentation))
        ]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/fcm"), json: body)
        expectError(response, 422, ["service_account.private_key"])
        #expect(!response.text.contains("PRIVATE KEY"))
    }

    static let badServiceAccountFields: [(String, JSON)] = [
        ("client_email", .string("not-an-email")), ("token_uri", .string("ftp://oauth2.googleapis.com/token")),
        ("token_uri", .string("http://oauth2.googleapis.com/token")), ("token_uri", .string("https:///token")),
        ("token_uri", .string("https://a b c")), ("token_uri", .string("https://@:/")),
        ("type", .string("authorized_user")), ("private_key", .string("garbage")), ("project_id", .int(42)),
        ("project_id", .string("burger co/../app")), ("project_id", .string("Burger-Co")), ("project_id", "b-c"),
    ]

    @Test(arguments: badServiceAccountFields)
    func aBadServiceAccountFieldIs422NamingIt(field: String, value: JSON) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("service_account", serviceAccount(replacing: (field, value)))]).encodedString
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/fcm"), json: body), 422, ["service_account.\(field)"])
    }

    @Test(arguments: [
        #"{}"#, #"{"service_account":null}"#, #"{"service_account":42}"#, #"{"service_account":[1]}"#,
        #"{"service_account":"{not json"}"#,
    ])
    func aMissingOrMalformedServiceAccountIs422(_ body: String) throws {
        let fixture = try ServerFixture()
        expectError(try fixture.herald.admin("PUT", path(fixture, "/fcm"), json: body), 422, ["service_account"])
    }

    // MARK: - FCM quota

    @Test func aProjectsQuotaIsSetForItsProjectAndCleared() throws {
        let fixture = try ServerFixture()
        _ = try fixture.herald.admin(
            "PUT", path(fixture, "/fcm"), json: JSON.object([("service_account", serviceAccount())]).encodedString)
        let set = try fixture.herald.admin("PUT", path(fixture, "/fcm/quota"), json: #"{"quota_per_minute":1200000}"#)
        #expect(set.status == 200, "\(set)")
        #expect(set.value?["project_id"] == "burger-co-app" && set.value?["quota_per_minute"] == 1_200_000)
        let stored = try fixture.herald.store.read { try $0.fcmQuotas.quotaPerMinute(projectID: "burger-co-app") }
        #expect(stored == 1_200_000, "kept for the project, which every business sending as it shares")
        let cleared = try fixture.herald.admin("PUT", path(fixture, "/fcm/quota"), json: #"{"quota_per_minute":null}"#)
        #expect(cleared.status == 200 && cleared.value?["quota_per_minute"] == .null)
        #expect(try fixture.herald.store.read { try $0.fcmQuotas.quotaPerMinute(projectID: "burger-co-app") } == nil)
    }

    @Test func aQuotaWithoutAServiceAccountIs422() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("PUT", path(fixture, "/fcm/quota"), json: #"{"quota_per_minute":10}"#)
        expectError(response, 422, ["service_account"])
    }

    @Test(arguments: [
        #"{}"#, #"{"quota_per_minute":0}"#, #"{"quota_per_minute":-5}"#, #"{"quota_per_minute":1.5}"#,
        #"{"quota_per_minute":"600000"}"#, #"{"quota_per_minute":60000001}"#, #"{"quota_per_minute":[1]}"#,
        #"{"quota_per_minute":1e300}"#,
    ])
    func aBadQuotaIs422NamingIt(_ body: String) throws {
        let fixture = try ServerFixture()
        _ = try fixture.herald.admin(
            "PUT", path(fixture, "/fcm"), json: JSON.object([("service_account", serviceAccount())]).encodedString)
        expectError(try fixture.herald.admin("PUT", path(fixture, "/fcm/quota"), json: body), 422, ["quota_per_minute"])
    }

    @Test func anUnknownQuotaFieldIs422() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/fcm/quota"), json: #"{"quota_per_minute":10,"per_second":1}"#)
        expectError(response, 422, ["per_second"])
    }

    @Test func everyMissingServiceAccountFieldIsNamedAtOnce() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/fcm"), json: #"{"service_account":{"type":"service_account"}}"#)
        expectError(
            response, 422,
            [
                "service_account.project_id", "service_account.client_email", "service_account.private_key",
                "service_account.token_uri",
            ])
    }

    // MARK: - Templates

    @Test func everyContractEventHasADefaultTemplate() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin("GET", path(fixture, "/templates"))
        #expect(response.status == 200, "\(response)")
        let templates = try #require(response.value?.arrayValue)
        let events = templates.compactMap { $0["event"]?.stringValue }
        #expect(
            Set(Self.contractEvents).isSubset(of: events), "missing: \(Set(Self.contractEvents).subtracting(events))")
        #expect(Set(events).count == events.count)
        for template in templates {
            let event = template["event"]?.stringValue ?? "?"
            #expect(template["title"]?.stringValue?.isEmpty == false, "\(event)")
            #expect(template["body"]?.stringValue?.isEmpty == false, "\(event)")
            #expect(template["enabled"] == true, "\(event)")
            #expect(template["customized"] == false, "\(event)")
            #expect(template["placeholders"]?.arrayValue?.contains("first_name") == true, "\(event)")
        }
        for event in Self.contractEvents {
            let one = try fixture.herald.admin("GET", path(fixture, "/templates/\(event)"))
            #expect(one.status == 200, "\(event): \(one)")
            #expect(one.value?["event"] == .string(event))
        }
    }

    @Test func theCheckInDefaultReadsAsTheSeed() throws {
        let fixture = try ServerFixture()
        let response = try fixture.herald.admin(
            "POST", path(fixture, "/templates/checkin/preview"),
            json: #"{"values":{"points":12,"location":"Brooklyn Location"}}"#)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["title"] == "Points Earned")
        #expect(response.value?["subtitle"] == "You've earned points!")
        #expect(response.value?["body"] == "You've got 12 points from your last visit at Brooklyn Location!")
        #expect(response.value?["sound"] == "default")

        let template = try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value
        #expect(template?["body"] == "You've got {{points}} points from your last visit at {{location}}!")
        #expect(template?["placeholders"]?.arrayValue?.contains("points") == true)
    }

    @Test func savingATemplateChangesWhatIsSent() throws {
        let fixture = try ServerFixture()
        let saved = try fixture.herald.admin(
            "PUT", path(fixture, "/templates/signup"),
            json: #"{"title":"Hey {{first_name}}!","body":"{{business}} is glad you're here, {{ first_name }}."}"#)
        #expect(saved.status == 200, "\(saved)")
        #expect(saved.value?["customized"] == true)
        #expect(saved.value?["subtitle"] == "Thanks for joining!")  // left out: kept
        #expect(
            try fixture.herald.admin("GET", path(fixture, "/templates/signup")).value?["title"] == "Hey {{first_name}}!"
        )

        let app = try fixture.signedUp("ann@example.com", firstName: "Ann")
        let welcome = try #require(try app.entries().first)
        #expect(welcome["title"] == "Hey Ann!")
        #expect(welcome["message"] == "Burger Co is glad you're here, Ann.")
    }

    @Test(arguments: ["title", "subtitle", "body"])
    func anUnknownPlaceholderIs422NamingIt(_ field: String) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([(field, "You've got {{points}} points and {{favorite_color}}")]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, [field])
        #expect(response.errorFields?[field]?.first?.contains("{{favorite_color}}") == true, "\(response)")
        #expect(
            response.errorFields?[field]?.first?.contains("{{points}}") == true, "it lists the allowed placeholders")
        #expect(try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value?["customized"] == false)
    }

    @Test func aTemplateWhosePushCouldOutgrowApplesLimitIs422() throws {
        let fixture = try ServerFixture()
        // 900 bytes of text fit; with {{first_name}} and {{location}} at their longest (100 four-byte characters
        // each), and JSON's escaping of quotes, the payload could not.
        let quoted = String(repeating: "\"", count: 900)
        let body = JSON.object([
            ("title", .string(quoted)), ("subtitle", .string(quoted)),
            ("body", .string("{{first_name}}, {{location}}, {{business}}: " + quoted)),
        ]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, ["body"])
        #expect(response.errorFields?["body"]?.first?.contains("4096") == true, "\(response)")
        #expect(try fixture.herald.admin("GET", path(fixture, "/templates/checkin")).value?["customized"] == false)
        // Half as long is fine.
        let half = String(repeating: "\"", count: 300)
        let fits = JSON.object([("title", .string(half)), ("body", .string("{{first_name}} " + half))]).encodedString
        #expect(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: fits).status == 200)
        // A location's name may be 200 characters: five of them can't fit, three can (beside that title).
        for (count, status) in [(5, 422), (3, 200)] {
            let names = JSON.object([("body", .string(String(repeating: "{{location}} ", count: count)))])
            let response = try fixture.herald.admin(
                "PUT", path(fixture, "/templates/checkin"), json: names.encodedString)
            #expect(response.status == status, "\(count) locations: \(response)")
        }
    }

    @Test func aPlaceholderOfAnotherEventIs422() throws {
        let fixture = try ServerFixture()
        // {{points}} belongs to check-ins, not to gift cards.
        let response = try fixture.herald.admin(
            "PUT", path(fixture, "/templates/gift_card"), json: #"{"body":"{{points}} points"}"#)
        expectError(response, 422, ["body"])
        #expect(response.errorFields?["body"]?.first?.contains("{{points}}") == true)
    }

    @Test(arguments: [
        "You've got {{points points", "You've got points}} now", "{{}} points", "{{ points! }}",
        "{{points}} and {{location",
    ])
    func unbalancedBracesAre422(_ text: String) throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("body", .string(text))]).encodedString
        expectError(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body), 422, ["body"])
    }

    @Test(.bug(id: "apitests-4", "a stray }} before a valid {{placeholder}} passes template validation"))
    func aStrayClosingBraceBeforeAPlaceholderIs422() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("body", "Oops }} you've got {{points}} points")]).encodedString
        let response = try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: body)
        expectError(response, 422, ["body"])
    }

    @Test func blankTitleOrBodyAndWrongTypesAre422() throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"title":"  "}"#), 422,
            "title", "can't be blank")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"body":null}"#), 422, "body",
            "can't be blank")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"title":7}"#), 422, "title",
            "must be a string")
        expectError(
            try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: #"{"enabled":"no"}"#), 422,
            ["enabled"])
        let long = JSON.object([("title", .string(String(repeating: "x", count: 1001)))]).encodedString
        expectError(try fixture.herald.admin("PUT", path(fixture, "/templates/checkin"), json: long), 422, ["title"])
    }

    @Test(arguments: ["GET", "PUT"])
    func anUnknownEventIs404(_ method: String) throws {
        let fixture = try ServerFixture()
        let response =
            method == "GET"
            ? try fixture.herald.admin("GET", path(fixture, "/templates/birthday"))
            : try fixture.herald.admin("PUT", path(fixture, "/templates/birthday"), json: #"{"title":"x","body":"y"}"#)
        expectError(response, 404, ["base"])
        expectError(
            try fixture.herald.admin("POST", path(fixture, "/templates/birthday/preview"), json: "{}"), 404, ["base"])
    }

    @Test func aDisabledSignUpTemplateNotifiesNobody() throws {
        let fixture = try ServerFixture()
        let off = try fixture.herald.admin("PUT", path(fixture, "/templates/signup"), json: #"{"enabled":false}"#)
        #expect(off.status == 200, "\(off)")
        #expect(off.value?["enabled"] == false)
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken())
        #expect(try ann.entries().isEmpty)

        #expect(
            try fixture.herald.admin("PUT", path(fixture, "/templates/signup"), json: #"{"enabled":true}"#).status
                == 200)
        let bob = try fixture.signedUp("bob@example.com")
        #expect(try bob.entries().count == 1)
    }

    @Test("news asked for while its template is disabled is a 422 saying so, not a silent nothing")
    func aDisabledNewsTemplateSendsNoNews() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken())
        #expect(
            try fixture.herald.admin("PUT", path(fixture, "/templates/news"), json: #"{"enabled":false}"#).status == 200
        )
        let response = try fixture.postNews([("user_ids", [.int(ann.userID!)]), ("title", "Hi"), ("body", "There")])
        expectError(response, 422, ["base"])
        #expect(response.errorFields?["base"]?.first?.contains("disabled") == true, "\(response)")
        #expect(try ann.entries().count == 1)  // only the welcome
    }

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
