import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The provider tokens the nodes share, by signer (a business's credential, or a key every business holding it
/// shares): saved and read back sealed as given, and renewed by one node at a time.
@Suite("Store conformance: provider tokens")
struct ProviderTokenStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func savedAndReadBack(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let signer = ProviderTokenRecords.signer(businessID: world.business.id)
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .apns) } == nil)
        let token = StoredProviderToken(
            sealedToken: [0, 1, 2, 255], credentialVersion: at(10), issuedAt: at(20), expiresAt: at(3_620))
        try store.transaction { try $0.providerTokens.save(token, signer: signer, platform: .apns) }
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .apns) } == token)
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .fcm) } == nil)
        // The next one replaces it.
        let next = StoredProviderToken(
            sealedToken: [9], credentialVersion: at(10), issuedAt: at(2_720), expiresAt: at(6_320))
        try store.transaction { try $0.providerTokens.save(next, signer: signer, platform: .apns) }
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .apns) } == next)
    }

    @Test(arguments: StoreBackend.allCases)
    func oneNodeRenewsAtATime(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let signer = ProviderTokenRecords.signer(businessID: world.business.id)
        func begin(_ owner: String, until: Int64, at now: Int64) throws -> Bool {
            try store.transaction {
                try $0.providerTokens.beginRenewal(
                    signer: signer, platform: .apns, owner: owner, until: at(until), at: at(now))
            }
        }
        #expect(try begin("node-a", until: 30, at: 0), "nobody renews: node A may")
        #expect(try store.read { try $0.providerTokens.find(signer: signer, platform: .apns) } == nil, "no token yet")
        #expect(try begin("node-b", until: 40, at: 10) == false, "A holds the renewal")
        #expect(try begin("node-a", until: 45, at: 15), "A may ask again")
        #expect(try begin("node-b", until: 80, at: 45), "A's renewal ran out: B may")
        // Saving ends the renewal: the next one is anyone's.
        let token = StoredProviderToken(sealedToken: [1], credentialVersion: at(1), issuedAt: at(50), expiresAt: at(99))
        try store.transaction { try $0.providerTokens.save(token, signer: signer, platform: .apns) }
        #expect(try begin("node-a", until: 90, at: 51))
    }

    @Test(arguments: StoreBackend.allCases)
    func eachSignerHasItsOwn(_ backend: StoreBackend) throws {
        let store = try StoreFixture(backend).store
        let (key, other) = (
            ProviderTokenRecords.signer(keyFingerprint: "aa"), ProviderTokenRecords.signer(keyFingerprint: "bb")
        )
        let token = StoredProviderToken(sealedToken: [7], credentialVersion: at(0), issuedAt: at(1), expiresAt: at(2))
        try store.transaction { try $0.providerTokens.save(token, signer: key, platform: .apns) }
        #expect(try store.read { try $0.providerTokens.find(signer: key, platform: .apns) } == token)
        #expect(try store.read { try $0.providerTokens.find(signer: other, platform: .apns) } == nil)
        #expect(try store.read { try $0.providerTokens.find(signer: key, platform: .fcm) } == nil)
        let renew = { (signer: String) in
            try store.transaction {
                try $0.providerTokens.beginRenewal(signer: signer, platform: .apns, owner: "a", until: at(9), at: at(3))
            }
        }
        #expect(try renew(key) && renew(other), "a renewal each")
        #expect(
            try store.transaction {
                try $0.providerTokens.beginRenewal(signer: other, platform: .apns, owner: "b", until: at(9), at: at(4))
            } == false)
    }
}
