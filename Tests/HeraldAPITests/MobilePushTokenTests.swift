import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Whose a push token is: one token, one device, one user. The latest signed-in registration that presents a token
/// owns it — through the mobile API's sign-up, login and profile update, or an identified install — so the earlier
/// user's pushes stop reaching that phone; an install of nobody never takes one from a user's device.
@Suite("Mobile API: whose a push token is")
struct MobilePushTokenTests {
    @Test func aTokenMovesWithEverySignInThatSendsIt() throws {
        let fixture = try ServerFixture()
        let annsToken = randomAPNsToken()
        let ann = try fixture.signedUp("ann@example.com", token: annsToken, deviceID: "ann-iphone")
        func holders() throws -> [String] {
            try fixture.store.read {
                try $0.devices.find(businessID: fixture.business.id, platform: .apns, tokens: [annsToken])
            }.map(\.deviceKey)
        }
        // Bob sends the phone's token from a device record of his at sign-up, at login and in a profile update:
        // each time his device is the one holding it (he signed in on that phone last), Ann's none.
        let bob = try fixture.signedUp("bob@example.com", token: annsToken, deviceID: "bob-1")
        #expect(try holders() == ["bob-1"])
        #expect(try fixture.app(deviceID: "bob-2").logIn(email: "bob@example.com", token: annsToken).status == 200)
        #expect(try holders() == ["bob-2"])
        bob.deviceID = "bob-3"
        #expect(try bob.update([("apn_token", .string(annsToken))]).status == 200)
        #expect(try holders() == ["bob-3"])
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 0, "Ann's news no longer reaches the phone")
        #expect(try fixture.deliveryCount(forNewsTo: bob.userID!) == 1)
        // Ann's logout there clears nothing of Bob's.
        #expect(try ann.logOut().status == 200)
        #expect(try holders() == ["bob-3"])
    }

    @Test(.bug(id: "issue-40-6", "a token reused at a new sign-up kept carrying the earlier user's pushes"))
    func aTokenIsTheLatestSignInsThatPresentsIt() throws {
        // As Punchh has it: a token reused at a new sign-up moves to the new user.
        let fixture = try ServerFixture()
        let token = randomAPNsToken()
        func holders() throws -> [Int64?] {
            try fixture.store.read {
                try $0.devices.find(businessID: fixture.business.id, platform: .apns, tokens: [token])
            }.map(\.userID)
        }
        // Ann signed in on her phone and never logged out; Eve signs up on that phone with its token.
        let ann = try fixture.signedUp("ann@example.com", token: token, deviceID: "ann-iphone")
        let eve = try fixture.signedUp("eve@example.com", token: token)
        #expect(try holders() == [eve.userID])
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 0, "Ann's news no longer reaches the phone")
        #expect(try fixture.deliveryCount(forNewsTo: eve.userID!) == 1)
        // Eve logs out there: nobody's news reaches it.
        #expect(try eve.logOut().status == 200)
        #expect(try holders().isEmpty)
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 0)
        // Ann logs in on it again with the token, then Eve sends it in a profile update: the latest has it.
        #expect(try fixture.app(deviceID: "ann-iphone").logIn(email: "ann@example.com", token: token).status == 200)
        #expect(try holders() == [ann.userID])
        let eveAgain = fixture.app()
        #expect(try eveAgain.logIn(email: "eve@example.com").status == 200)
        #expect(try eveAgain.update([("apn_token", .string(token))]).status == 200)
        #expect(try holders() == [eve.userID])
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 0)
    }

    @Test(.bug(id: "issue-40-6", "an install of nobody sending a user's token held it beside their device"))
    func anInstallOfNobodyTakesNoTokenFromAUsersDevice() throws {
        let fixture = try ServerFixture()
        let token = randomAPNsToken()
        let ann = try fixture.signedUp("ann@example.com", token: token, deviceID: "ann-iphone")
        let stranger = try fixture.install("stranger", [("push_token", .string(token))])
        #expect(try fixture.device("stranger")?.token == nil)
        let update = try stranger.call(
            "PUT", "/api/v1/installs/current", json: .object(DeviceTestClient.detailFields(pushToken: .string(token))))
        #expect(update.status == 200 && update.value?["has_push_token"] == false, "\(update)")
        #expect(try fixture.device("ann-iphone")?.token == token)
        #expect(try fixture.deliveryCount(forNewsTo: ann.userID!) == 1)
    }
}
