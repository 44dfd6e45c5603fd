import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The mobile API on push tokens.
extension MobileAccountTests {
    // MARK: - Push tokens

    @Test func anAPNsTokenAtSignUpRegistersAnIOSDevice() throws {
        let fixture = try ServerFixture()
        let token = randomAPNsToken()
        let app = try fixture.signedUp("ann@example.com", token: token.uppercased(), deviceID: "iphone-1")
        let devices = try fixture.store.read { try $0.devices.all(userID: app.userID!) }
        #expect(devices.count == 1)
        #expect(devices.first?.platform == .apns)
        #expect(devices.first?.token == token)  // kept lower-case
        #expect(devices.first?.deviceKey == "iphone-1")

        let ids = try fixture.news(to: [app.userID!])
        let deliveries = try fixture.deliveries(notificationID: ids[0])
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["platform"] == "apns")
        #expect(deliveries.first?["status"] == "queued")
        #expect(deliveries.first?["device_id"] == .int(devices[0].id))
        #expect(deliveries.first?["notification_id"] == .int(ids[0]))
    }

    @Test func aGCMTokenAtSignUpRegistersAnAndroidDevice() throws {
        let fixture = try ServerFixture()
        let token = randomFCMToken()
        let app = try fixture.signedUp("ann@example.com", token: token, android: true)
        let devices = try fixture.store.read { try $0.devices.all(userID: app.userID!) }
        #expect(devices.count == 1)
        #expect(devices.first?.platform == .fcm)
        #expect(devices.first?.token == token)
        let ids = try fixture.news(to: [app.userID!])
        #expect(try fixture.deliveries(notificationID: ids[0]).map { $0["platform"] } == ["fcm"])
    }

    @Test func aSignUpWithoutATokenGetsNoDelivery() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.allSatisfy { $0.token == nil })
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
        // The news is in the inbox all the same.
        #expect(try app.entries().count == 2)
    }

    @Test(arguments: [false, true])
    func anUpdateSetsANewToken(android: Bool) throws {
        let fixture = try ServerFixture()
        let first = android ? randomFCMToken() : randomAPNsToken()
        let second = android ? randomFCMToken() : randomAPNsToken()
        let app = try fixture.signedUp("ann@example.com", token: first, android: android, deviceID: "phone-1")
        let response = try app.update([(android ? "gcm_token" : "apn_token", .string(second))])
        #expect(response.status == 200, "\(response)")
        let devices = try fixture.store.read { try $0.devices.all(userID: app.userID!) }
        #expect(devices.count == 1)
        #expect(devices.first?.token == second)
        #expect(devices.first?.platform == (android ? .fcm : .apns))
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 1)
    }

    @Test func anUpdateRegistersTheTokenAfterSignUp() throws {
        // Punchh's option 2b: the token comes with a profile update right after sign-up.
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let token = randomAPNsToken()
        #expect(
            try app.update([("first_name", "Ann"), ("email", "ann@example.com"), ("apn_token", .string(token))]).status
                == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token) == [token])
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 1)
    }

    @Test(arguments: [false, true])
    func anEmptyTokenClearsIt(android: Bool) throws {
        // Punchh's step 3: `""` nullifies the token.
        let fixture = try ServerFixture()
        let token = android ? randomFCMToken() : randomAPNsToken()
        let app = try fixture.signedUp("ann@example.com", token: token, android: android, deviceID: "phone-1")
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 1)
        let response = try app.update([(android ? "gcm_token" : "apn_token", "")])
        #expect(response.status == 200, "\(response)")
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token) == [nil])
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
    }

    @Test func logoutClearsTheDeviceToken() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        #expect(try app.logOut().status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token) == [nil])
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
    }

    @Test func logoutClearsOnlyThatDevicesToken() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        let tablet = fixture.app(deviceID: "tablet-1")
        let tabletToken = randomAPNsToken()
        #expect(try tablet.logIn(email: "ann@example.com", token: tabletToken).status == 200)
        #expect(try fixture.deliveryCount(forNewsTo: phone.userID!) == 2)
        #expect(try phone.logOut().status == 200)
        let devices = try fixture.store.read { try $0.devices.all(userID: phone.userID!) }
        #expect(devices.first { $0.deviceKey == "phone-1" }?.token == nil)
        #expect(devices.first { $0.deviceKey == "tablet-1" }?.token == tabletToken)
        #expect(try fixture.deliveryCount(forNewsTo: phone.userID!) == 1)
    }

    @Test func logoutClearsATokenRegisteredByUpdateOnADeviceThatNamedItself() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com", deviceID: "phone-1")
        #expect(try app.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        #expect(try app.logOut().status == 200)
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
    }

    @Test func logoutClearsATokenRegisteredByUpdateFromADeviceNamedOnlyAfterSignIn() throws {
        // Signed in without `punchh-app-device-id`; the update that brings the token names the device, and so
        // does the logout: the session knows no device, the call does.
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        app.deviceID = "phone-9"
        #expect(try app.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 1)
        #expect(try app.logOut().status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.allSatisfy { $0.token == nil })
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
    }

    @Test func logoutNamingItsDeviceStillClearsATokenRegisteredUnnamed() throws {
        // Signed in and registered the token without `punchh-app-device-id`; only the logout names the device.
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        #expect(try app.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        app.deviceID = "phone-3"
        #expect(try app.logOut().status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.allSatisfy { $0.token == nil })
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 0)
    }

    @Test(
        .bug(id: "apitests-1", "logout keeps a token set by profile update when the app sends no punchh-app-device-id"))
    func logoutClearsATokenRegisteredByUpdateWithoutADeviceID() throws {
        // Punchh's option 2b without `punchh-app-device-id`: the session was issued with no device, the update
        // registers one, and logout has no device to clear.
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        #expect(try app.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        #expect(try app.logOut().status == 200)
        let tokens = try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token)
        let deliveries = try fixture.deliveryCount(forNewsTo: app.userID!)
        #expect(tokens.allSatisfy { $0 == nil }, "tokens left: \(tokens)")
        #expect(deliveries == 0)
    }

    @Test(
        .bug(id: "apitests-7", "a stale session's logout clears the push token of the user the device now belongs to"))
    func aStaleSessionsLogoutLeavesTheNewOwnersTokenAlone() throws {
        // Ann signs in on a shared iPad; Bob then signs in on it (the device moves to him, with his token);
        // the app finally logs Ann's old session out.
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "shared-ipad")
        _ = try fixture.signedUp("bob@example.com")
        let bob = fixture.app(deviceID: "shared-ipad")
        let bobsToken = randomAPNsToken()
        #expect(try bob.logIn(email: "bob@example.com", token: bobsToken).status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: bob.userID!) }.map(\.token) == [bobsToken])

        #expect(try ann.logOut().status == 200)
        expectError(try ann.profile(), 401, ["base"])
        let tokens = try fixture.store.read { try $0.devices.all(userID: bob.userID!) }.map(\.token)
        let deliveries = try fixture.deliveryCount(forNewsTo: bob.userID!)
        #expect(tokens == [bobsToken])
        #expect(deliveries == 1)
    }

    @Test(.bug(id: "issue-16-4", "another user's device is taken over by naming its device id"))
    func namingAnotherUsersDeviceIDDoesNotTakeTheDevice() throws {
        let fixture = try ServerFixture()
        let annsToken = randomAPNsToken()
        let ann = try fixture.signedUp("ann@example.com", token: annsToken, deviceID: "ann-iphone")
        _ = try fixture.signedUp("bob@example.com")
        // Bob logs in naming Ann's device id (with a token of his own, or none).
        #expect(try fixture.app(deviceID: "ann-iphone").logIn(email: "bob@example.com").status == 200)
        #expect(
            try fixture.app(deviceID: "ann-iphone").logIn(email: "bob@example.com", token: randomAPNsToken()).status
                == 200)
        let annsDevices = try fixture.store.read { try $0.devices.all(userID: ann.userID!) }
        #expect(annsDevices.map(\.deviceKey) == ["ann-iphone"])
        #expect(annsDevices.map(\.token) == [annsToken])
        // Ann's next news still reaches her phone.
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 1)
    }

    @Test func theWelcomeIsPushedToTheNewDevice() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        let welcome = try #require(try app.entries().first?["id"]?.int64Value)
        let deliveries = try fixture.deliveries(notificationID: welcome)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["platform"] == "apns")
    }

    @Test func concurrentSignUpsWithOneEmailCreateOneAccount() throws {
        let fixture = try ServerFixture()
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let app = fixture.app(deviceID: "phone-\(index)")
            let response = try? app.signUp(email: "race@example.com", token: randomAPNsToken())
            statuses.add(response.map { "\($0.status) \($0.errorFields?.description ?? "")" } ?? "no answer")
        }
        let all = statuses.values.sorted()
        #expect(all.filter { $0.hasPrefix("200") }.count == 1, "\(all)")
        #expect(all.filter { $0 == #"422 ["email": ["has already been taken"]]"# }.count == 7, "\(all)")
        let user = try #require(
            try fixture.store.read { try $0.users.find(businessID: fixture.business.id, email: "race@example.com") })
        #expect(try fixture.store.read { try $0.devices.all(userID: user.id) }.count == 1)
    }

    @Test func concurrentLoginsWithOneTokenLeaveItOnOneDeviceOfTheUser() throws {
        // One user's devices pass a token on, as another user's do (aTokenMovesWithEverySignInThatSendsIt).
        let fixture = try ServerFixture()
        let user = try fixture.signedUp("user@example.com")
        let token = randomFCMToken()
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let app = fixture.app(deviceID: "phone-\(index)")
            _ = try? app.logIn(email: "user@example.com", token: token, android: true)
        }
        let holders = try fixture.store.read { try $0.devices.all(userID: user.userID!) }.filter { $0.token == token }
        #expect(holders.count == 1)
    }

    @Test(.bug(id: "apitests-8", "emails with control characters or empty domain labels are accepted"))
    func emailsWithControlCharactersAreInvalid() throws {
        let fixture = try ServerFixture()
        for email in ["a\u{0}b@example.com", "ann\u{7}@example.com", "ann@exam\u{1F}ple.com", "ann@example..com"] {
            let response = try fixture.app().signUp(email: email)
            expectError(response, 422, "email", "is invalid")
        }
    }

    @Test(.bug(id: "apitests-12", "an email in another Unicode normalization form is another account"))
    func emailsAreComparedAfterUnicodeNormalization() throws {
        let fixture = try ServerFixture()
        let composed = "jos\u{E9}@example.com"  // é as one scalar (NFC), as iOS keyboards type it
        let decomposed = "jose\u{301}@example.com"  // e + combining acute (NFD)
        #expect(composed == decomposed)  // the same string to Swift
        let first = try fixture.signedUp(composed)
        let second = try fixture.app().signUp(email: decomposed)
        let login = fixture.app()
        let loginStatus = try login.logIn(email: decomposed).status
        expectError(second, 422, "email", "has already been taken")
        #expect(loginStatus == 200)
        #expect(login.userID == first.userID)
    }

    @Test func anOverlongPasswordIs422() throws {
        let fixture = try ServerFixture()
        let response = try fixture.app().signUp(email: "ann@example.com", password: String(repeating: "p", count: 513))
        expectError(response, 422, "password", "is too long (maximum is 512 bytes)")
        #expect(
            try fixture.app().signUp(email: "ann@example.com", password: String(repeating: "p", count: 512)).status
                == 200)
    }

    @Test func aPhoneTakenByAnotherUserCannotBeCopied() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com")
        let bob = try fixture.signedUp("bob@example.com")
        #expect(try ann.update([("phone", "555-123-4567")]).status == 200)
        expectError(try bob.update([("phone", "5551234567")]), 422, "phone", "has already been taken")
        #expect(try bob.profile().value?["phone"] == .null)
        // Setting one's own phone again is fine.
        #expect(try ann.update([("phone", "(555) 123-4567")]).status == 200)
    }

    @Test func aDeviceThatChangesHandsMovesToTheNewUserWithProof() throws {
        let fixture = try ServerFixture()
        let annsToken = randomAPNsToken()
        let ann = try fixture.signedUp("ann@example.com", token: annsToken, deviceID: "shared-ipad")
        _ = try fixture.signedUp("bob@example.com")
        // Bob holds the iPad: the app sends its push token (the proof) with his login.
        let bobOnIPad = fixture.app(deviceID: "shared-ipad")
        #expect(try bobOnIPad.logIn(email: "bob@example.com", token: annsToken).status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: ann.userID!) }.isEmpty)
        #expect(try fixture.store.read { try $0.devices.all(userID: bobOnIPad.userID!) }.map(\.token) == [annsToken])
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 0)
        #expect(try fixture.deliveryCount(forNewsTo: bobOnIPad.userID!) == 1)
    }

    static let invalidTokens: [(String, JSON)] = [
        ("apn_token", .string("xyz")),
        ("apn_token", .string(String(repeating: "a", count: 62))),  // too short
        ("apn_token", .string(String(repeating: "a", count: 65))),  // odd length
        ("apn_token", .string(String(repeating: "g", count: 64))),  // not hex
        ("apn_token", .string(String(repeating: "a", count: 202))),  // too long
        ("apn_token", .int(123)),
        ("apn_token", .array([.string("a")])),
        ("gcm_token", .string("short")),
        ("gcm_token", .string("has spaces in it and is long enough")),
        ("gcm_token", .string("quote\"and'semicolon;--" + String(repeating: "x", count: 20))),
        ("gcm_token", .bool(true)),
    ]

    @Test(arguments: invalidTokens)
    func anInvalidTokenIs422AndCreatesNoAccount(field: String, token: JSON) throws {
        let fixture = try ServerFixture()
        let response = try signUp(fixture, signUpUser(email: "ann@example.com", extra: [(field, token)]))
        expectError(response, 422, field, "is invalid")
        #expect(try fixture.app().logIn(email: "ann@example.com").status == 422)

        // The same token by profile update is refused too, and leaves the device as it was.
        let good = randomAPNsToken()
        let app = try fixture.signedUp("bob@example.com", token: good, deviceID: "phone-1")
        expectError(try app.update([(field, token)]), 422, field, "is invalid")
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token) == [good])
    }

    @Test func bothTokensAtOnceIs422() throws {
        let fixture = try ServerFixture()
        let user = signUpUser(
            email: "ann@example.com",
            extra: [("apn_token", .string(randomAPNsToken())), ("gcm_token", .string(randomFCMToken()))])
        expectError(try signUp(fixture, user), 422, ["base"])
    }

    @Test func theDeviceIDAndUserAgentAreKeptPerDevice() throws {
        let fixture = try ServerFixture()
        let phoneToken = randomAPNsToken()
        let phone = fixture.app(deviceID: "iphone-15")
        let body = JSON.object([
            ("client", .string(fixture.business.client)),
            ("user", signUpUser(email: "ann@example.com", extra: [("apn_token", .string(phoneToken))])),
        ]).encodedString
        let signUp = try phone.http.request(
            "POST", "/api2/mobile/users",
            headers: [
                (
                    "x-pch-digest",
                    MobileTestClient.digest(
                        target: "/api2/mobile/users", body: Array(body.utf8), secret: fixture.business.secret)
                ),
                ("punchh-app-device-id", "iphone-15"), ("User-Agent", "BurgerCo/3.1 (iPhone15,2; iOS 17.4)"),
                ("Content-Type", "application/json"),
            ],
            body: Array(body.utf8))
        #expect(signUp.status == 200, "\(signUp)")
        let userID = try #require(signUp.value?["user"]?["user_id"]?.int64Value)

        let pixelToken = randomFCMToken()
        let pixel = fixture.app(deviceID: "pixel-8")
        let loginBody = JSON.object([
            ("client", .string(fixture.business.client)),
            ("user", ["email": "ann@example.com", "password": "password123", "gcm_token": .string(pixelToken)]),
        ]).encodedString
        let login = try pixel.http.request(
            "POST", "/api2/mobile/users/login",
            headers: [
                (
                    "x-pch-digest",
                    MobileTestClient.digest(
                        target: "/api2/mobile/users/login", body: Array(loginBody.utf8), secret: fixture.business.secret
                    )
                ),
                ("punchh-app-device-id", "pixel-8"), ("User-Agent", "okhttp/4.12.0 BurgerCo/3.1 Android 14"),
                ("Content-Type", "application/json"),
            ],
            body: Array(loginBody.utf8))
        #expect(login.status == 200, "\(login)")

        let devices = try fixture.store.read { try $0.devices.all(userID: userID) }
        #expect(devices.count == 2)
        let iphone = devices.first { $0.deviceKey == "iphone-15" }
        let android = devices.first { $0.deviceKey == "pixel-8" }
        #expect(iphone?.platform == .apns)
        #expect(iphone?.token == phoneToken)
        #expect(iphone?.userAgent == "BurgerCo/3.1 (iPhone15,2; iOS 17.4)")
        #expect(android?.platform == .fcm)
        #expect(android?.token == pixelToken)
        #expect(android?.userAgent == "okhttp/4.12.0 BurgerCo/3.1 Android 14")

        let ids = try fixture.news(to: [userID])
        #expect(
            try fixture.deliveries(notificationID: ids[0]).compactMap { $0["platform"]?.stringValue }.sorted() == [
                "apns", "fcm",
            ])
    }

    @Test func aLoginWithATokenOnTheSameDeviceReplacesIt() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com", token: randomAPNsToken(), deviceID: "phone-1")
        #expect(try app.logOut().status == 200)
        let fresh = randomAPNsToken()
        let again = fixture.app(deviceID: "phone-1")
        #expect(try again.logIn(email: "ann@example.com", token: fresh).status == 200)
        #expect(try fixture.store.read { try $0.devices.all(userID: app.userID!) }.map(\.token) == [fresh])
        #expect(try fixture.deliveryCount(forNewsTo: app.userID!) == 1)
    }
}
