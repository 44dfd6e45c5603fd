import HeraldDeliveryPorts
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The credentials' congestion windows as the nodes keep them: one a credential, the last kept in place of the one
/// before, read back by any node on the database, within the time asked.
@Suite("Store conformance: credential windows")
struct CredentialWindowStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func aWindowOneNodeKeepsIsWhereAnotherStarts(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let other = try backend.reopen(world.path)  // another node, its own connection to the same database
        let business = world.business.id
        func window(_ platform: PushPlatform, _ limit: Int, found: Bool, at time: Int64) -> CredentialWindow {
            CredentialWindow(businessID: business, platform: platform, limit: limit, found: found, at: at(time))
        }
        #expect(try other.credentialWindows(since: at(0)).isEmpty)
        try world.store.saveCredentialWindows([
            window(.apns, 4096, found: false, at: 10), window(.fcm, 64, found: false, at: 10),
        ])
        #expect(
            try other.credentialWindows(since: at(0))
                == [window(.apns, 4096, found: false, at: 10), window(.fcm, 64, found: false, at: 10)],
            "the other node reads what this one kept")
        try other.saveCredentialWindows([window(.apns, 470, found: true, at: 20)])
        #expect(
            try world.store.credentialWindows(since: at(0))
                == [window(.apns, 470, found: true, at: 20), window(.fcm, 64, found: false, at: 10)],
            "the last kept, in place of the one before, whichever node kept it")
        #expect(
            try world.store.credentialWindows(since: at(15)) == [window(.apns, 470, found: true, at: 20)],
            "one kept before the time asked (the engine's window memory) is not where a credential starts")
    }
}
