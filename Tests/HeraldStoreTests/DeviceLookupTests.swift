import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The admin console's device lookup and business list, on both databases.
@Suite("Store conformance: device lookup")
struct DeviceLookupTests {
    @Test(arguments: StoreBackend.allCases)
    func devicesAreFoundByEveryConditionGiven(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let (burger, taco) = try store.transaction { tx in
            (
                try tx.businesses.insert(
                    name: "Burger", clientID: "c1", sealedSecret: [1], posKeyHash: "p1", at: at(0)),
                try tx.businesses.insert(name: "Taco", clientID: "c2", sealedSecret: [1], posKeyHash: "p2", at: at(0))
            )
        }
        func device(_ business: Business, _ key: String, email: String?, token: String?) throws -> Device {
            try store.transaction { tx in
                let user = try email.map {
                    try tx.users.insert(
                        NewUser(businessID: business.id, email: $0, passwordHash: "h", firstName: "A", lastName: "B"),
                        at: at(0))
                }
                var device = try tx.devices.findOrInsert(
                    businessID: business.id, key: key, userID: user?.id, platform: .apns, at: at(0)
                ).device
                device.token = token
                try tx.devices.save(device)
                return device
            }
        }
        let ann = try device(burger, "ann-iphone", email: "ann@example.com", token: "abcd_1234")
        let bob = try device(burger, "bob-iphone", email: "bob@example.com", token: "abce5678")
        let anonymous = try device(burger, "no-user", email: nil, token: nil)
        _ = try device(taco, "ann-iphone", email: "ann@example.com", token: "abcd9999")

        func found(_ lookup: DeviceLookup, limit: Int = 50, offset: Int = 0) throws -> [Int64] {
            try store.read { try $0.devices.lookup(businessID: burger.id, lookup, limit: limit, offset: offset) }
                .map(\.device.id)
        }
        #expect(try found(DeviceLookup()) == [ann.id, bob.id, anonymous.id])
        #expect(try found(DeviceLookup(), limit: 1, offset: 1) == [bob.id])
        #expect(try found(DeviceLookup(userID: ann.userID)) == [ann.id])
        #expect(try found(DeviceLookup(email: "ann@example.com")) == [ann.id])
        #expect(try found(DeviceLookup(installID: "ann-iphone")) == [ann.id])
        #expect(try found(DeviceLookup(tokenPrefix: "abc")) == [ann.id, bob.id])
        #expect(try found(DeviceLookup(tokenPrefix: "abcd_")) == [ann.id])
        #expect(try found(DeviceLookup(tokenPrefix: "abc_"), limit: 5) == [], "_ is no wildcard")
        #expect(try found(DeviceLookup(tokenPrefix: "abc%")) == [], "% is no wildcard")
        #expect(try found(DeviceLookup(email: "ann@example.com", installID: "bob-iphone")) == [])
        let rows = try store.read {
            try $0.devices.lookup(businessID: burger.id, DeviceLookup(installID: "ann-iphone"), limit: 5, offset: 0)
        }
        #expect(rows.first?.email == "ann@example.com")
        #expect(rows.first?.device.token == "abcd_1234")
        #expect(
            try store.read { try $0.devices.lookup(businessID: burger.id, DeviceLookup(), limit: 5, offset: 0) }
                .last?.email == nil)

        #expect(try store.read { try $0.businesses.all(limit: 1, offset: 1) }.map(\.id) == [taco.id])
        #expect(try store.read { try $0.deliveries.recent(deviceID: ann.id, limit: 10) }.isEmpty)
    }
}
