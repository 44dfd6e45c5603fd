import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The identity keys of the businesses: stored sealed, each business's own, retired once.
@Suite("Store conformance: identity keys")
struct IdentityKeyStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func storedRetiredAndKeptApart(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let id = world.business.id
        let key = StoredIdentityKey(businessID: id, kid: "ik_1", sealedKey: [1, 2], createdAt: at(1), retiredAt: nil)
        let original = StoredIdentityKey(
            businessID: id, kid: "original", sealedKey: nil, createdAt: at(0), retiredAt: at(5))
        try store.transaction {
            try $0.identityKeys.insert(key)
            try $0.identityKeys.insert(original)
        }
        #expect(try store.read { try $0.identityKeys.all(businessID: id) } == [original, key])
        #expect(try store.read { try $0.identityKeys.find(businessID: id, kid: "ik_1") } == key)
        #expect(try store.read { try $0.identityKeys.find(businessID: id + 1, kid: "ik_1") } == nil)
        #expect(throws: StoreError.self, "one kid per business") {
            try store.transaction { try $0.identityKeys.insert(key) }
        }
        try store.transaction { try $0.identityKeys.retire(businessID: id, kid: "ik_1", at: at(7)) }
        try store.transaction { try $0.identityKeys.retire(businessID: id, kid: "ik_1", at: at(9)) }
        #expect(
            try store.read { try $0.identityKeys.find(businessID: id, kid: "ik_1") }?.retiredAt == at(7),
            "the first stands")
    }
}
