import Foundation
import HeraldModel
import Testing

@testable import HeraldSDK

/// Registering, signing, re-registering on 401, the token's life, and identity kept through a locked device.
@Suite struct InstallSessionTests {
    @Test func registersOnceWithEveryFieldThenSignsEveryCall() async throws {
        let harness = Harness()
        let client = await harness.start()
        await client.setPushToken([0xde, 0xad, 0xbe, 0xef])
        try await client.pull()
        #expect(harness.api.registrations == 1)
        let first = try #require(harness.transport.requests.current.first)
        #expect(first.method == "POST" && first.url == "https://push.example.com/api/v1/installs")
        #expect(first.header("X-Herald-Signature") == nil, "registration is unsigned")
        let body = try JSON.parse(first.body)
        #expect(
            body.objectValue?.map(\.key) == [
                "api_key", "install_id", "platform", "push_token", "push_token_type", "apns_environment", "app_version",
                "os_version", "device_model", "locale", "timezone", "sdk_version", "permissions",
            ])
        #expect(body["api_key"] == "live_key" && body["platform"] == "ios" && body["push_token_type"] == "apns")
        #expect(body["permissions"] == ["notifications": false, "location": "none"])
        #expect(DeviceEventValidator.isUUID(body["install_id"]?.stringValue ?? ""))
        #expect(body["install_id"]?.stringValue == (try await client.installID()))
        // The token went in an update, hex-encoded; every call after registration is signed and verified.
        #expect(harness.api.updates.last?["push_token"] == "deadbeef")
        #expect(harness.api.signatureFailures == 0)
        for request in harness.transport.requests.current.dropFirst() {
            #expect(request.header("X-Herald-Key-Id") == "k1")
            #expect(request.header("X-Herald-Signature")?.count == 64)
        }
    }

    @Test func tokensOfAnyLengthAreHex() async throws {
        let harness = Harness()
        let client = await harness.start()
        let long = (0..<100).map { UInt8($0) }
        await client.setPushToken(long)
        #expect(harness.api.updates.last?["push_token"] == .string(HexEncoding.encode(long)))
        await client.setPushToken(text: "fcm:abc")
        #expect(harness.api.updates.last?["push_token"] == "fcm:abc")
    }

    @Test func tokenSentOnChangeAndAtLeastDaily() async throws {
        let harness = Harness()
        let client = await harness.start()
        await client.setPushToken([1, 2, 3])
        #expect(harness.api.updates.count == 1)
        await client.setPushToken([1, 2, 3])
        await client.appDidEnterBackground()
        await client.appDidBecomeActive()
        #expect(harness.api.updates.count == 1, "unchanged and fresh: not sent again")
        harness.clock.advance(by: .seconds(23 * 3600))
        await client.appDidEnterBackground()
        await client.appDidBecomeActive()
        #expect(harness.api.updates.count == 1)
        harness.clock.advance(by: .seconds(3600))
        await client.appDidEnterBackground()
        await client.appDidBecomeActive()
        #expect(harness.api.updates.count == 2, "a day later it is sent again")
        #expect(harness.api.updates.last?["push_token"] == "010203")
        await client.setPushToken([9])
        #expect(harness.api.updates.count == 3)
        await client.setPermissions(Permissions(notifications: true, location: .always))
        #expect(harness.api.updates.last?["permissions"] == ["notifications": true, "location": "always"])
    }

    @Test func aNewTokenAfterRelaunchIsSentButTheSameIsNot() async throws {
        let harness = Harness()
        var client = await harness.start()
        await client.setPushToken([1])
        let updates = harness.api.updates.count
        client = await harness.relaunch()
        await client.setPushToken([1])
        #expect(harness.api.updates.count == updates)
        await client.setPushToken([2])
        #expect(harness.api.updates.count == updates + 1)
        #expect(harness.api.registrations == 1, "the credential survived the relaunch")
    }

    @Test func registersAgainOn401AndRetriesTheCall() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.queueForPull(testMessage("m-9"))
        harness.api.revokeCredentials()
        let pulled = try await client.pull()
        #expect(pulled.map(\.id) == ["m-9"])
        #expect(harness.api.registrations == 2)
        #expect(
            harness.transport.lines.suffix(3) == [
                "POST /api/v1/notifications/pull", "POST /api/v1/installs", "POST /api/v1/notifications/pull",
            ])
        let installs = harness.transport.requests.current.filter { $0.url.hasSuffix("/installs") }
        let ids = try installs.map { try JSON.parse($0.body)["install_id"] }
        #expect(ids[0] == ids[1], "the same install id registers again")
    }

    @Test func concurrent401sShareOneRegistration() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.revokeCredentials()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try? await client.pull() } }
        }
        #expect(harness.api.registrations == 2, "one registration at start, one for all the 401s")
    }

    @Test func aSecond401IsAnError() async throws {
        let harness = Harness()
        let client = await harness.start()
        harness.api.force(401, times: 2, on: "/api/v1/notifications/pull")
        await #expect(throws: HeraldError(code: .unauthorized, status: 401, detail: "POST /api/v1/notifications/pull"))
        {
            try await client.pull()
        }
    }

    @Test func aDeviceClockOffByAnHourSignsWithTheServersTime() async throws {
        let harness = Harness()
        let client = await harness.start()
        // The device's clock runs an hour behind the server's: its first signed call is refused with the Date.
        harness.api.set(\.serverOffset, .seconds(3600))
        let registrations = harness.api.registrations
        try await client.pull()
        #expect(harness.api.registrations == registrations, "no new registration: the clocks were the problem")
        #expect(harness.diagnostics.codes.contains(.clockSkew))
        try await client.pull()
        #expect(harness.api.signatureFailures == 1, "from then on it signs with the server's time")
    }

    @Test func sandboxRegistrationKeepsTheTestDevice() async throws {
        let harness = Harness(configuration: testConfiguration(apiKey: "sandbox_key"))
        let client = await harness.start()
        #expect(await client.testDevice() == TestDevice(status: "pending", approvalCode: "ABC123"))
    }

    @Test func anotherKeyRegistersTheSameInstallAgain() async throws {
        let storage = MemoryStorage()
        let live = Harness(storage: storage)
        let first = try await live.start().installID()
        let sandbox = Harness(configuration: testConfiguration(apiKey: "sandbox_key"), storage: storage, api: live.api)
        let second = try await sandbox.start().installID()
        #expect(first == second)
        #expect(live.api.registrations == 2)
    }

    @Test func identityIsNotReplacedBeforeTheFirstUnlock() async throws {
        let storage = MemoryStorage()
        let first = Harness(storage: storage)
        let id = try await first.start().installID()
        // Relaunched in the background before the first unlock: storage can't be read.
        storage.setAvailable(false)
        let locked = Harness(storage: storage, api: first.api)
        let client = await locked.start()
        await #expect(throws: HeraldError.self) { try await client.installID() }
        #expect(locked.transport.requests.current.isEmpty, "nothing registered, nothing sent")
        #expect(locked.scheduler.count >= 1, "start is retried later")
        // Events recorded meanwhile are kept in memory.
        client.track("prewarmed")
        storage.setAvailable(true)
        await client.protectedDataDidBecomeAvailable()
        #expect(try await client.installID() == id, "the same identity once unlocked")
        #expect(first.api.registrations == 1)
        await locked.flush()
        #expect(first.api.eventTypes == ["custom"])
    }

    @Test func segmentsAreCheckedAndSent() async throws {
        let harness = Harness()
        let client = await harness.start()
        try await client.setSegments(["vip", "coffee"])
        #expect(harness.api.segments == [["vip", "coffee"]])
        await #expect(throws: HeraldError.self) { try await client.setSegments([""]) }
        await #expect(throws: HeraldError.self) {
            try await client.setSegments([String(repeating: "s", count: 256)])
        }
        await #expect(throws: HeraldError.self) { try await client.setSegments((0...100).map { "s\($0)" }) }
        #expect(harness.api.segments.count == 1)
    }

    @Test func logOutClearsTheTokenOnTheServer() async throws {
        let harness = Harness()
        let client = await harness.start()
        await client.setPushToken([1, 2])
        try await client.session.logOut()  // what the deprecated `logOut()` does
        #expect(harness.api.updates.last?["push_token"] == .null)
    }

    @Test func deleteMyDataDeletesTheInstallAndEverythingKept() async throws {
        let harness = Harness()
        let client = await harness.start()
        let id = try await client.installID()
        harness.api.queueForPull(testMessage("m-1"))
        try await client.pull()
        client.track("before")
        try await client.deleteMyData()
        #expect(harness.api.deletedInstalls == [id])
        #expect(harness.storage.keys.isEmpty, "nothing left on the device: \(harness.storage.keys)")
        #expect(client.track("after") == nil, "stopped: nothing recorded")
        await #expect(throws: HeraldError.self) { try await client.pull() }
        // Starting again is a new install.
        await client.start()
        #expect(try await client.installID() != id)
    }

    @Test func deleteMyDataOfflineIsFinishedAtTheNextStart() async throws {
        let harness = Harness()
        let client = await harness.start()
        let id = try await client.installID()
        harness.api.set(\.offline, true)
        await #expect(throws: HeraldError.self) { try await client.deleteMyData() }
        #expect(harness.api.deletedInstalls.isEmpty)
        harness.api.set(\.offline, false)
        let relaunched = await harness.relaunch()
        #expect(harness.api.deletedInstalls == [id])
        #expect(try await relaunched.installID() != id, "then a new install")
    }

    @Test func baseURLsWithAPathPrefixAreSignedWithIt() throws {
        let base = try #require(BaseURL("https://example.com:8443/herald/"))
        #expect(base.origin == "https://example.com:8443" && base.pathPrefix == "/herald")
        #expect(BaseURL("https://example.com")?.pathPrefix == "")
        #expect(BaseURL("ftp://example.com") == nil)
        #expect(BaseURL("https://") == nil)
        #expect(BaseURL("https://exa mple.com") == nil)
        #expect(BaseURL("https://example.com/?x") == nil)
    }

    @Test func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Timestamp(iso8601: "1994-11-06T08:49:37Z")?.seconds)
        #expect(
            HTTPDate.parse(httpDate(Timestamp(iso8601: "2025-05-01T09:30:00Z")!))
                == Timestamp(iso8601: "2025-05-01T09:30:00Z")?.seconds)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("") == nil)
    }
}
