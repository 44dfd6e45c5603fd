import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Who may make an install of nobody theirs: only a request signed with that install's own credential (the SDK's
/// identify). The mobile API's `punchh-app-device-id` naming it, and an access token got that way, give nothing.
@Suite("Device API: adopting an install")
struct DeviceAdoptionTests {
    @Test(.bug(id: "issue-40-2", "an install of nobody is taken over through the mobile API by knowing its id"))
    func anInstallOfNobodyIsNotTakenByNamingItsIDOnTheMobileAPI() throws {
        let fixture = try ServerFixture()
        let token = randomAPNsToken()
        let phone = try fixture.install("victim-install", [("push_token", .string(token))])
        let campaign = try fixture.campaign()
        let waiting = try fixture.message(to: "victim-install", campaign: campaign)
        let original = try #require(try fixture.device("victim-install"))

        // Eve names the install's id at sign-up, at login and in a profile update, each time with a token of her
        // own: a device record of her own; the install still belongs to nobody, with its token and credential.
        let eve = try fixture.signedUp("eve@example.com", token: randomAPNsToken(), deviceID: "victim-install")
        let login = fixture.app(deviceID: "victim-install")
        #expect(try login.logIn(email: "eve@example.com", token: randomAPNsToken()).status == 200)
        #expect(try login.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        let kept = try #require(try fixture.device("victim-install"))
        #expect(kept.id == original.id && kept.userID == nil, "\(kept)")
        #expect(kept.token == token && kept.install?.keyID == phone.keyID)
        #expect(try fixture.store.read { try $0.devices.all(userID: eve.userID!) }.allSatisfy { $0.id != original.id })

        // Her access tokens prove nothing about it: a registration offering one starts another install.
        for proof in [eve.accessToken!, login.accessToken!] {
            let intruder = try fixture.install("victim-install", [("access_token", .string(proof))])
            #expect(intruder.installID != "victim-install")
            #expect(try intruder.pull().isEmpty)
        }
        // The install's credential still works, and its messages are still its own.
        #expect(try phone.pull().map { $0["id"] } == [.string(String(waiting.id))])
        let next = try fixture.message(to: "victim-install", campaign: campaign, headline: "Later")
        #expect(try phone.pull().map { $0["id"] } == [.string(String(next.id))])
        #expect(try fixture.device("victim-install")?.install?.keyID == phone.keyID)
        // Eve's record for that id is hers to log out of: signed in without naming a device, a token registered by
        // an update naming the id is cleared by a logout naming it.
        let later = fixture.app()
        #expect(try later.logIn(email: "eve@example.com").status == 200)
        later.deviceID = "victim-install"
        #expect(try later.update([("apn_token", .string(randomAPNsToken()))]).status == 200)
        #expect(try later.logOut().status == 200)
        let evesOwn = try fixture.store.read { try $0.devices.all(userID: eve.userID!) }
        #expect(!evesOwn.isEmpty && evesOwn.allSatisfy { $0.id != original.id })
        #expect(evesOwn.filter { $0.deviceKey.hasPrefix("victim-install") }.map(\.token) == [nil])
        #expect(try fixture.device("victim-install")?.token == token)
    }

    @Test(.bug(id: "issue-40-2", "an install made under a key the server gives a user's own record gets that user"))
    func noInstallIsMadeUnderAKeyOfTheServersOwnRecords() throws {
        let fixture = try ServerFixture()
        let eve = try fixture.signedUp("eve@example.com")
        _ = try fixture.install("victim-install")
        // Installs registered in wait under the keys the server gives records of its own: ids of the server's.
        for key in [
            "victim-install|user:\(eve.userID!)", "user:\(eve.userID!):apns", "direct:apns:\(randomAPNsToken())",
            "token:abc",
        ] {
            let squatter = try fixture.install(key)
            #expect(squatter.installID != key)
            #expect(try fixture.device(key) == nil)
        }
        // Eve's login naming the install's id makes her own record: hers alone, no install's credential on it.
        let login = fixture.app(deviceID: "victim-install")
        #expect(try login.logIn(email: "eve@example.com", token: randomAPNsToken()).status == 200)
        let own = try #require(try fixture.device("victim-install|user:\(eve.userID!)"))
        #expect(own.userID == eve.userID && own.install == nil)
    }
}
