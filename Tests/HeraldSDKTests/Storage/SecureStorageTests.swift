import HeraldModel
import Testing

@testable import HeraldSDK

/// The install record (and its credential) in the Keychain on iOS, moved there from the file an earlier version
/// wrote: the same install afterwards, with no new registration; before the first unlock nothing is assumed.
@Suite struct SecureStorageTests {
    @Test func movingFromTheFileStoreKeepsTheInstall() async throws {
        // An app on the earlier version: everything in files.
        let files = MemoryStorage()
        let before = Harness(storage: files)
        let old = await before.start()
        let installID = try await old.installID()
        try await old.identify(externalID: "cust-3", identityToken: IdentityTests.token("cust-3"))
        #expect(files.keys.contains("install"))

        // Updated: the Keychain (here its stand-in) holds the install from now on.
        let keychain = MemoryStorage()
        let after = Harness(storage: files, secureStorage: keychain, api: before.api)
        let client = await after.start()
        #expect(try await client.installID() == installID)
        #expect(before.api.registrations == 1, "the same credential: not registered again")
        #expect(await client.externalID() == "cust-3")
        #expect(keychain.keys == ["install"])
        #expect(!files.keys.contains("install"), "moved, not copied")
        try await client.pull()
        #expect(before.api.signatureFailures == 0)
    }

    @Test func aMoveStoppedHalfWayIsFinishedAndAnUnreadableStoreAssumesNothing() throws {
        let files = MemoryStorage()
        let keychain = MemoryStorage()
        try files.write("install", Array(#"{"install_id":"old"}"#.utf8))
        try keychain.write("install", Array(#"{"install_id":"new"}"#.utf8))
        let value = MovingStoredValue(primary: keychain, legacy: files, key: "install")
        #expect(try value.load()?["install_id"] == "new", "the Keychain's copy wins")
        #expect(files.keys.isEmpty, "the copy left behind is removed")

        // Before the first unlock neither can be read: an error, never "nothing stored".
        let locked = MemoryStorage()
        locked.setAvailable(false)
        #expect(throws: StorageError.self) { try MovingStoredValue(primary: locked, legacy: files, key: "i").load() }
        #expect(throws: StorageError.self) { try MovingStoredValue(primary: keychain, legacy: locked, key: "i").load() }

        // And back again (an app that stops using the Keychain).
        try value.clear()
        try keychain.write("install", Array(#"{"install_id":"k"}"#.utf8))
        #expect(try MovingStoredValue(primary: files, legacy: keychain, key: "install").load()?["install_id"] == "k")
        #expect(keychain.keys.isEmpty && files.keys == ["install"])
    }
}
