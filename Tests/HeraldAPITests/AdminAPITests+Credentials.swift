import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldTesting
import Testing

/// The admin API on APNs and FCM credentials and FCM quotas.
extension AdminAPITests {
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
}
