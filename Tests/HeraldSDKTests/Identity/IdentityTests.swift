import HeraldModel
import Testing

@testable import HeraldSDK

/// `identify` and `logout` against the device API's rules: the user kept on the device and sent, sent again when it
/// couldn't be (offline) and after the server started a fresh install record, a token that doesn't vouch for the id
/// dropped (and the install left with nobody).
@Suite struct IdentityTests {
    static func token(_ externalID: String) -> String { FakeDeviceAPI.identityToken(for: externalID) }

    @Test func identifyLinksTheInstallAndLogoutUnlinksIt() async throws {
        let harness = Harness()
        let client = await harness.start()
        let installID = try await client.installID()
        try await client.identify(externalID: "cust-42", identityToken: Self.token("cust-42"))
        #expect(harness.api.user(of: installID) == "cust-42")
        #expect(await client.externalID() == "cust-42")
        try await client.identify(externalID: "cust-42", identityToken: Self.token("cust-42"))
        #expect(harness.api.identities == ["cust-42"], "the same user again: nothing sent")
        try await client.logout()
        #expect(harness.api.user(of: installID) == nil)
        #expect(await client.externalID() == nil)
        try await client.logout()
        #expect(harness.api.identities == ["cust-42", nil], "logged out already: nothing sent")
    }

    @Test func anIdentityThatCouldNotBeSentIsSentAtTheNextStart() async throws {
        let harness = Harness()
        var client = await harness.start()
        let installID = try await client.installID()
        harness.api.set(\.offline, true)
        await #expect(throws: HeraldError.self) {
            try await client.identify(externalID: "cust-7", identityToken: Self.token("cust-7"))
        }
        harness.api.set(\.offline, false)
        client = await harness.relaunch()
        #expect(harness.api.user(of: installID) == "cust-7")
        // The same for a logout.
        harness.api.set(\.offline, true)
        await #expect(throws: HeraldError.self) { try await client.logout() }
        harness.api.set(\.offline, false)
        await client.appDidEnterBackground()
        await client.appDidBecomeActive()
        #expect(harness.api.user(of: installID) == nil)
    }

    @Test func aServerThatStartedAFreshInstallRecordIsToldTheUserAgain() async throws {
        let harness = Harness()
        let client = await harness.start()
        let installID = try await client.installID()
        try await client.identify(externalID: "cust-9", identityToken: Self.token("cust-9"))
        harness.api.revokeCredentials()
        try await client.pull()  // 401, registered again: a fresh record, which belongs to nobody
        await client.flushEvents()
        #expect(harness.api.registrations == 2)
        try await client.setSegments(["vip"])
        await client.appDidEnterBackground()
        await client.appDidBecomeActive()
        #expect(harness.api.user(of: installID) == "cust-9")
    }

    @Test func aRegistrationAgainOffersTheIdentityAndKeepsTheInstallIDTheServerGives() async throws {
        let harness = Harness()
        let client = await harness.start()
        #expect(harness.api.registered.first?["identity_token"] == nil, "nobody to prove yet")
        try await client.identify(externalID: "cust-9", identityToken: Self.token("cust-9"))
        harness.api.revokeCredentials()
        harness.api.set(\.assignedInstallID, "server-chosen")
        try await client.pull()  // 401, registered again, with the proof of the user
        let again = try #require(harness.api.registered.last)
        #expect(again["external_id"] == "cust-9" && again["identity_token"] == .string(Self.token("cust-9")))
        #expect(try await client.installID() == "server-chosen")
        harness.api.set(\.assignedInstallID, nil)
        harness.api.revokeCredentials()
        try await client.pull()
        #expect(harness.api.registered.last?["install_id"] == "server-chosen", "the server's id from then on")
    }

    @Test func aTokenThatDoesNotVouchForTheIdIsDroppedAndTheInstallBelongsToNobody() async throws {
        let harness = Harness()
        let client = await harness.start()
        let installID = try await client.installID()
        try await client.identify(externalID: "cust-1", identityToken: Self.token("cust-1"))
        await #expect(throws: HeraldError(code: .rejected, status: 403)) {
            try await client.identify(externalID: "cust-2", identityToken: Self.token("cust-1"))
        }
        #expect(harness.api.user(of: installID) == nil, "not left with cust-1 either")
        #expect(await client.externalID() == nil)
        #expect(harness.diagnostics.codes.contains(.requestRejected))
        await #expect(throws: HeraldError.self) { try await client.identify(externalID: "", identityToken: "x") }
        await #expect(throws: HeraldError.self) {
            try await client.identify(externalID: String(repeating: "x", count: 256), identityToken: "x")
        }
        await #expect(throws: HeraldError.self) { try await client.identify(externalID: "a\u{0}b", identityToken: "x") }
        await #expect(throws: HeraldError.self) { try await client.identify(externalID: "cust-1", identityToken: "") }
        #expect(harness.api.identities == ["cust-1", "cust-2", nil])
    }

    @Test(.bug(id: "issue-40-6", "an identified install sent its push token again only at a later synchronization"))
    func onceIdentifiedTheInstallSendsItsDetailsAgainAtOnce() async throws {
        // The server makes the install a user's: only then does it take the phone's token from a user's device.
        let harness = Harness()
        let client = await harness.start()
        await client.setPushToken([0xDE, 0xAD, 0xBE, 0xEF])
        let sent = harness.api.updates.count
        try await client.identify(externalID: "cust-3", identityToken: Self.token("cust-3"))
        #expect(harness.api.updates.count == sent + 1)
        #expect(harness.api.updates.last?["push_token"] == "deadbeef")
        try await client.identify(externalID: "cust-3", identityToken: Self.token("cust-3"))
        await client.appDidBecomeActive()
        #expect(harness.api.updates.count == sent + 1, "nothing changed since: not sent again")
    }
}
