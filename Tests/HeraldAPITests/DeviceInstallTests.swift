import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// `POST /api/v1/installs` and what follows it: the api keys a business gets, the credential an install gets, who
/// may take an install over, a Punchh device adopted, updates, segments and delete-my-data.
@Suite("Device API: installs")
struct DeviceInstallTests {
    @Test func aBusinessGetsAPIKeysThatCanBeIssuedAnew() throws {
        let fixture = try ServerFixture()
        let keys = fixture.business
        #expect(keys.apiKey.hasPrefix("hlive_") && keys.sandboxAPIKey.hasPrefix("hsbx_"))
        #expect(try fixture.herald.deviceClient().register(apiKey: keys.apiKey).status == 201)
        #expect(try fixture.herald.deviceClient().register(apiKey: keys.sandboxAPIKey).status == 201)
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        #expect(other.apiKey != keys.apiKey)

        // Only the sandbox key is replaced: the old one stops registering, the live one still does.
        let path = "/api/admin/businesses/\(keys.id)/api_keys"
        let issued = try fixture.herald.admin("POST", path, json: #"{"keys":["sandbox"]}"#)
        #expect(issued.status == 200, "\(issued)")
        let newSandbox = try #require(issued.value?["sandbox_api_key"]?.stringValue)
        #expect(issued.value?["api_key"] == nil)
        expectError(
            try fixture.herald.deviceClient().register(apiKey: keys.sandboxAPIKey), 401, "api_key",
            "is not an api_key or sandbox_api_key of any business")
        #expect(try fixture.herald.deviceClient().register(apiKey: newSandbox).status == 201)
        #expect(try fixture.herald.deviceClient().register(apiKey: keys.apiKey).status == 201)
        // Both, with no body.
        let both = try fixture.herald.admin("POST", path)
        #expect(both.value?["api_key"]?.stringValue?.hasPrefix("hlive_") == true)
        #expect(both.value?["sandbox_api_key"]?.stringValue?.hasPrefix("hsbx_") == true)
        expectError(try fixture.herald.admin("POST", path, json: #"{"keys":["test"]}"#), 422, ["keys"])
        expectError(try fixture.herald.admin("POST", path, json: #"{"keys":[]}"#), 422, ["keys"])
        expectError(try fixture.herald.admin("POST", path, json: #"{"which":"live"}"#), 422, ["which"])
        #expect(try fixture.herald.admin("POST", "/api/admin/businesses/999/api_keys").status == 404)
        #expect(try fixture.herald.client().request("POST", path).status == 401)
    }

    @Test func registrationAnswersACredentialAndConfigAndEverySignedCallWorksWithIt() throws {
        let fixture = try ServerFixture()
        let phone = fixture.herald.deviceClient(installID: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        let token = randomAPNsToken()
        let response = try phone.register(
            apiKey: fixture.business.apiKey, [("push_token", .string(token)), ("segments", ["vip", "beta"])])
        #expect(response.status == 201, "\(response)")
        let answer = try #require(response.value)
        #expect(answer["credential"]?["key_id"]?.stringValue?.hasPrefix("hk_") == true)
        #expect((answer["credential"]?["secret"]?.stringValue?.count ?? 0) >= 40)
        #expect(answer["config"]?["workspace"] == "live")
        #expect(answer["config"]?["max_events_per_batch"] == 100)
        #expect(answer["test_device"] == nil)
        let device = try #require(try fixture.device(phone.installID))
        #expect(device.token == token && device.platform == .apns && device.userID == nil)
        #expect(device.install?.locale == "en_US" && device.install?.deviceModel == "iPhone15,2")
        #expect(device.install?.notificationsEnabled == true && device.install?.locationPermission == "when_in_use")
        #expect(device.userAgent == nil || device.userAgent?.isEmpty == false)
        #expect(try fixture.store.read { try $0.devices.segments(id: device.id) } == ["beta", "vip"])
        // The secret is sealed at rest: the store never holds it in clear.
        #expect(!String(decoding: device.install!.sealedSecret, as: UTF8.self).contains(phone.secret!))

        // Updates: the same fields, every one checked; the answer shows the install.
        var fields = DeviceTestClient.detailFields(pushToken: .null)
        fields[fields.firstIndex { $0.key == "timezone" }!].value = "Europe/Paris"
        let update = try phone.call("PUT", "/api/v1/installs/current", json: .object(fields))
        #expect(update.status == 200, "\(update)")
        #expect(update.value?["timezone"] == "Europe/Paris" && update.value?["has_push_token"] == false)
        #expect(update.value?["install_id"] == .string(phone.installID))
        #expect(try fixture.device(phone.installID)?.token == nil)
        expectError(
            try phone.call("PUT", "/api/v1/installs/current", json: .object(fields + [("api_key", "x")])), 422,
            ["api_key"])
        expectError(
            try phone.call(
                "PUT", "/api/v1/installs/current", json: .object(fields.filter { $0.key != "timezone" })), 422,
            ["timezone"])
        expectError(
            try phone.call("PUT", "/api/v1/installs/current", json: .object(fields + [("colour", "red")])), 422,
            ["colour"])

        // Segments: at most 100, 1–255 characters, duplicates once; the answer is the stored list.
        let segments = try phone.call("PUT", "/api/v1/device/segments", json: ["segments": ["b", "a", "b"]])
        #expect(segments.status == 200 && segments.value?["segments"] == ["a", "b"], "\(segments)")
        let many = JSON.object([("segments", .array((0...100).map { .string("s\($0)") }))])
        expectError(try phone.call("PUT", "/api/v1/device/segments", json: many), 422, ["segments"])
        let long = JSON.object([("segments", [.string(String(repeating: "é", count: 256))])])
        expectError(try phone.call("PUT", "/api/v1/device/segments", json: long), 422, ["segments[0]"])
        expectError(try phone.call("PUT", "/api/v1/device/segments", json: ["segments": [""]]), 422, ["segments[0]"])
        let longest = JSON.object([("segments", [.string(String(repeating: "é", count: 255))])])
        #expect(try phone.call("PUT", "/api/v1/device/segments", json: longest).status == 200)
        #expect(try phone.call("PUT", "/api/v1/device/segments", json: ["segments": []]).value?["segments"] == [])
    }

    @Test func anInstallIsTakenOverOnlyWithItsCurrentCredential() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install("install-1", [("segments", ["vip"])])
        let campaign = try fixture.campaign()
        let message = try fixture.message(to: "install-1", campaign: campaign)
        let first = (keyID: phone.keyID!, secret: phone.secret!)
        let original = try #require(try fixture.device("install-1"))

        // Signed with its credential: 200, a new credential; the old one stops working; nothing else changes.
        let rotated = try phone.register(apiKey: fixture.business.apiKey, signed: true)
        #expect(rotated.status == 200, "\(rotated)")
        #expect(phone.keyID != first.keyID)
        #expect(try fixture.device("install-1")?.id == original.id)
        #expect(try phone.call("GET", "/api/v1/notifications/\(message.id)").status == 200)
        let stale = try phone.call("POST", "/api/v1/notifications/pull", keyID: first.keyID, secret: first.secret)
        expectError(stale, 401, "signature", "X-Herald-Key-Id names no install: register again")

        // Someone who knows the install id, registering unsigned: an install of their own under an id the server
        // chose; nothing of the old one is theirs or is touched.
        let intruder = fixture.herald.deviceClient(installID: "install-1")
        let separate = try intruder.register(apiKey: fixture.business.apiKey)
        #expect(separate.status == 201)
        #expect(intruder.installID != "install-1" && separate.value?["install_id"] == .string(intruder.installID))
        #expect(try fixture.device("install-1")?.id == original.id)
        #expect(try intruder.pull().isEmpty)
        #expect(try intruder.call("GET", "/api/v1/notifications/\(message.id)").status == 404)
        // The phone's credential still works, its segments and message are still there.
        #expect(try phone.call("GET", "/api/v1/notifications/\(message.id)").status == 200)
        #expect(try fixture.store.read { try $0.devices.segments(id: original.id) } == ["vip"])

        // Signed with another install's credential, or a wrong signature: refused, nothing registered.
        let other = try fixture.install("install-2")
        let hijack = other.registrationBody(apiKey: fixture.business.apiKey, [("install_id", "install-1")])
        intruder.installID = "install-1"
        expectError(
            try other.call("POST", "/api/v1/installs", body: hijack.encoded), 401, "signature",
            "the request is signed by another install's credential")
        expectError(
            try intruder.call(
                "POST", "/api/v1/installs", body: intruder.registrationBody(apiKey: fixture.business.apiKey).encoded,
                secret: "wrong"), 401, ["signature"])
        #expect(try fixture.device("install-1")?.id == original.id)
    }

    @Test func anInstallOnAPunchhDeviceIsThatDeviceOnlyWithProofOfItsUser() throws {
        let fixture = try ServerFixture()
        let token = randomAPNsToken()
        let app = try fixture.signedUp("ann@example.com", token: token, deviceID: "ann-iphone")
        let punchh = try #require(try fixture.device("ann-iphone"))
        #expect(punchh.install == nil && punchh.userID == app.userID)
        let campaign = try fixture.campaign()
        let offer = try fixture.message(to: "ann-iphone", campaign: campaign)

        // Knowing Ann's device id (and her push token) gives nothing: a separate install, Ann's device untouched.
        let bob = try fixture.signedUp("bob@example.com", deviceID: "bob-phone")
        for proof: [(String, JSON)] in [
            [], [("access_token", .string(bob.accessToken!))],
        ] {
            let intruder = try fixture.install("ann-iphone", [("push_token", .string(token))] + proof)
            #expect(intruder.installID != "ann-iphone")
            #expect(try intruder.pull().isEmpty)
            #expect(try intruder.call("GET", "/api/v1/notifications/\(offer.id)").status == 404)
        }
        let untouched = try #require(try fixture.device("ann-iphone"))
        #expect(untouched.userID == app.userID && untouched.token == token && untouched.install == nil)
        // A proof that proves nothing is refused.
        expectError(
            try fixture.herald.deviceClient(installID: "ann-iphone").register(
                apiKey: fixture.business.apiKey, [("access_token", "not-a-token")]), 403, ["access_token"])
        expectError(
            try fixture.herald.deviceClient(installID: "ann-iphone").register(
                apiKey: fixture.business.apiKey,
                [
                    ("external_id", "cust-ann"),
                    (
                        "identity_token",
                        .string(
                            String(repeating: "0", count: 64))
                    ),
                ]), 403, ["identity_token"])
        expectError(
            try fixture.herald.deviceClient(installID: "ann-iphone").register(
                apiKey: fixture.business.apiKey, [("external_id", "cust-ann")]), 422, ["identity_token"])

        // With Ann's access token: the one device, her user and token kept.
        let phone = try fixture.install("ann-iphone", [("access_token", .string(app.accessToken!))])
        #expect(phone.installID == "ann-iphone")
        let adopted = try #require(try fixture.device("ann-iphone"))
        #expect(adopted.id == punchh.id)
        #expect(adopted.userID == app.userID)
        #expect(adopted.token == token)
        #expect(adopted.install?.keyID == phone.keyID)
        // Ann's loyalty pushes and a campaign's message reach the one device.
        let news = try fixture.news(to: [app.userID!])
        #expect(try fixture.deliveries(notificationID: news[0]).map { $0["device_id"] } == [.int(punchh.id)])
        #expect(try phone.pull().map { $0["id"] } == [.string(String(offer.id))])
        // From now on the install says what its token is: null clears it.
        let cleared = try phone.call("PUT", "/api/v1/installs/current", json: .object(DeviceTestClient.detailFields()))
        #expect(cleared.value?["has_push_token"] == false)
        #expect(try fixture.device("ann-iphone")?.token == nil)
    }

    @Test func deleteMyDataLeavesNothingOfTheInstall() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.install("install-1", [("push_token", .string(randomAPNsToken()))])
        let campaign = try fixture.campaign()
        let message = try fixture.message(to: "install-1", campaign: campaign)
        #expect(try phone.post([deviceEvent(.notificationReceived, message)]).status == 202)
        #expect(try phone.call("PUT", "/api/v1/device/segments", json: ["segments": ["vip"]]).status == 200)
        let device = try #require(try fixture.device("install-1"))
        #expect(try fixture.deliveries(notificationID: message.id).count == 1)

        let deleted = try phone.call("DELETE", "/api/v1/device")
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        try fixture.store.read { tx throws in
            #expect(try tx.devices.find(id: device.id) == nil)
            #expect(try tx.devices.find(keyID: phone.keyID!) == nil)
            #expect(try tx.devices.segments(id: device.id).isEmpty)
            #expect(try tx.deviceEvents.count(deviceID: device.id) == 0)
            #expect(try tx.inbox.find(id: message.id) == nil)
            #expect(try tx.deliveries.all(notificationID: message.id).isEmpty)
        }
        for (method, target) in [
            ("POST", "/api/v1/notifications/pull"), ("DELETE", "/api/v1/device"),
            ("GET", "/api/v1/notifications/\(message.id)"),
        ] {
            expectError(
                try phone.call(method, target), 401, "signature", "X-Herald-Key-Id names no install: register again")
        }
        // The report keeps what was counted; the same install id may register again, afresh.
        #expect(try fixture.report(campaign)["received"] == 1)
        #expect(try phone.register(apiKey: fixture.business.apiKey).status == 201)
        #expect(try phone.pull().isEmpty)
    }

    @Test func registrationsFieldsAreChecked() throws {
        let fixture = try ServerFixture()
        let phone = fixture.herald.deviceClient()
        let key = fixture.business.apiKey
        expectError(try phone.register(apiKey: "hlive_nobody"), 401, ["api_key"])
        expectError(try phone.register(apiKey: ""), 422, ["api_key"])
        expectError(try phone.register(apiKey: key, [("install_id", "")]), 422, ["install_id"])
        expectError(
            try phone.register(apiKey: key, [("install_id", .string(String(repeating: "x", count: 256)))]), 422,
            ["install_id"])
        expectError(try phone.register(apiKey: key, [("platform", "windows")]), 422, ["platform"])
        expectError(try phone.register(apiKey: key, [("push_token_type", "sms")]), 422, ["push_token_type"])
        expectError(try phone.register(apiKey: key, [("push_token", "not hex")]), 422, ["push_token"])
        expectError(try phone.register(apiKey: key, [("timezone", "Mars/Olympus")]), 422, ["timezone"])
        expectError(try phone.register(apiKey: key, [("locale", "en US")]), 422, ["locale"])
        expectError(try phone.register(apiKey: key, [("app_version", "")]), 422, ["app_version"])
        expectError(try phone.register(apiKey: key, [("apns_environment", "staging")]), 422, ["apns_environment"])
        expectError(
            try phone.register(apiKey: key, [("permissions", ["notifications": "yes", "location": "sometimes"])]),
            422, ["permissions.notifications", "permissions.location"])
        expectError(try phone.register(apiKey: key, [("debug", true)]), 422, ["debug"])
        let bare = JSON.object([("api_key", .string(key)), ("install_id", "x")])
        expectError(
            try phone.register(body: bare), 422,
            [
                "platform", "push_token_type", "app_version", "os_version", "device_model", "sdk_version", "locale",
                "timezone", "permissions",
            ])
        // An Android install with an FCM token.
        let android = try phone.register(
            apiKey: key,
            [
                ("platform", "android"), ("push_token_type", "fcm"), ("push_token", .string(randomFCMToken())),
                ("apns_environment", .null),
            ])
        #expect(android.status == 201, "\(android)")
        #expect(try fixture.device(phone.installID)?.platform == .fcm)
        #expect(try nothingStored(fixture, except: [phone.installID]))
    }

    private func nothingStored(_ fixture: ServerFixture, except kept: [String]) throws -> Bool {
        let businessID = fixture.business.id
        let installIDs = try fixture.store.read { tx in
            try (1...20).compactMap { try tx.devices.find(id: $0) }.filter { $0.businessID == businessID }
                .map(\.deviceKey)
        }
        return installIDs == kept
    }
}
