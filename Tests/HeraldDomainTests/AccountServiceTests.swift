import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Domain conformance: accounts and devices")
struct AccountServiceTests {
    @Test(arguments: StoreBackend.allCases)
    func tokensMoveClearAndFollowTheDevice(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let ann = world.user
        let bob = try world.addUser("bob@example.com")
        func device(_ id: Int64) throws -> Device? { try store.read { try $0.devices.find(id: id) } }

        let phone = try world.register(ann, key: "device-A", token: "aaaa", at: at(1))
        #expect(phone.token == "aaaa")
        #expect(phone.userAgent == "Tests/1.0")
        #expect(phone.tokenUpdatedAt == at(1))

        // Another user registers the same token from another device (signed in on that phone): it is theirs now,
        // the earlier device's no more. Another device of the same user gives it up too.
        let bobPhone = try world.register(bob, key: "device-B", token: "aaaa", at: at(2))
        #expect(bobPhone.token == "aaaa")
        #expect(try device(phone.id)?.token == nil)
        let bobsOld = try world.register(bob, key: "device-B0", token: "b0b0", at: at(2))
        #expect(try world.register(bob, key: "device-B1", token: "b0b0", at: at(2)).token == "b0b0")
        #expect(try device(bobsOld.id)?.token == nil)

        // Same device, same token again: registered anew (Apple's 410 timestamp is compared with this).
        let again = try world.register(bob, key: "device-B", token: "aaaa", at: at(3))
        #expect(again.tokenUpdatedAt == at(3))

        // Registering without a token leaves it; "" (nil) clears it.
        #expect(try world.register(bob, key: "device-B", token: nil, at: at(4)).token == "aaaa")
        #expect(try world.register(bob, key: "device-B", token: .some(nil), at: at(5)).token == nil)

        // Knowing another user's device id is no proof of holding the device: the caller gets a record of their
        // own, and the owner keeps theirs with its token.
        let annsTablet = try world.register(ann, key: "device-C", token: "cccc", at: at(5))
        let own = try world.register(bob, key: "device-C", token: nil, at: at(6))
        #expect(own.id != annsTablet.id)
        #expect(own.userID == bob.id)
        #expect(try device(annsTablet.id)?.userID == ann.id)
        #expect(try device(annsTablet.id)?.token == "cccc")
        // The device's own push token is proof: it moves, with the token.
        let handedOver = try world.register(bob, key: "device-C", token: "cccc", at: at(6))
        #expect(handedOver.id == annsTablet.id)
        #expect(handedOver.userID == bob.id)
        #expect(handedOver.token == "cccc")
        #expect(try store.read { try $0.devices.all(userID: ann.id) }.map(\.token) == [nil])

        try world.register(bob, key: "device-D", token: "dddd", platform: .fcm)
        let fcmDevice = try store.read { try $0.devices.all(userID: bob.id) }.first { $0.deviceKey == "device-D" }!
        #expect(fcmDevice.platform == .fcm)
        try store.transaction { try $0.devices.clearToken(id: fcmDevice.id, at: at(9)) }
        #expect(try device(fcmDevice.id)?.token == nil)
        #expect(throws: DomainError.notFound("user")) {
            try world.accounts.registerDevice(
                businessID: world.business.id, userID: 999,
                DeviceRegistration(deviceKey: "z", platform: .apns, token: "z", userAgent: nil))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aDeviceMovesToAnotherUserOnlyWithProof(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let ann = world.user
        let bob = try world.addUser("bob@example.com")
        let annsPhone = try world.register(ann, key: "ann-phone", token: "aaaa", at: at(1))
        // Bob names Ann's device id without its token: his own record; Ann's device and token stay hers.
        let bobs = try world.register(bob, key: "ann-phone", token: "bbbb", at: at(2))
        #expect(bobs.id != annsPhone.id)
        let after = try #require(try world.store.read { try $0.devices.find(id: annsPhone.id) })
        #expect(after.userID == ann.id)
        #expect(after.token == "aaaa")
        // A session that was signed in on the device is proof too.
        let moved = try world.accounts.registerDevice(
            businessID: world.business.id, userID: bob.id,
            DeviceRegistration(
                deviceKey: "ann-phone", platform: .apns, token: nil, userAgent: nil, sessionDeviceID: annsPhone.id))
        #expect(moved.id == annsPhone.id)
        #expect(moved.userID == bob.id)
    }

    @Test(arguments: StoreBackend.allCases)
    func aUserKeepsAtMostTenDevicesTheOldestPruned(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let ann = world.user
        var ids: [Int64] = []
        for index in 0..<12 {
            ids.append(try world.register(ann, key: "phone-\(index)", token: "t\(index)", at: at(Int64(index + 1))).id)
        }
        let left = try world.store.read { try $0.devices.all(userID: ann.id) }.map(\.id)
        #expect(left == Array(ids.suffix(10)))
        // Using an old one again keeps it: the least recently updated goes instead.
        try world.register(ann, key: "phone-2", token: nil, at: at(20))
        try world.register(ann, key: "phone-12", token: "t12", at: at(21))
        let now = try world.store.read { try $0.devices.all(userID: ann.id) }.map(\.deviceKey)
        #expect(now.count == 10)
        #expect(now.contains("phone-2"))
        #expect(!now.contains("phone-3"))
    }

    @Test(arguments: StoreBackend.allCases)
    func aSignUpIsOneTransactionWithItsWelcome(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let welcome = try world.offer(validFor: 3600)
        try world.settings { $0.welcomeOfferID = welcome.id }
        let business = try world.store.read { try $0.businesses.find(id: world.business.id) }!
        world.clock.set(at(1))
        let (user, device) = try world.accounts.signUp(
            NewUser(
                businessID: business.id, email: "dan@example.com", passwordHash: "h", firstName: "Dan", lastName: "K"),
            business: business
        ) { user in
            DeviceRegistration(deviceKey: "user:\(user.id):apns", platform: .apns, token: "dddd", userAgent: nil)
        }
        #expect(device?.deviceKey == "user:\(user.id):apns")
        let entries = try world.entries(of: user)
        #expect(Set(entries.map(\.event)) == ["signup", "welcome_offer"])
        #expect(try entries.allSatisfy { try world.deliveries(of: $0).count == 1 }, "each pushed to the new device")
        #expect(try world.liveRewards(user, at: at(2)).count == 1)

        // A taken email writes nothing at all: no user, no device, no entries.
        let taken = #expect(throws: StoreError.self) {
            try world.accounts.signUp(
                NewUser(
                    businessID: business.id, email: "dan@example.com", passwordHash: "h", firstName: "X", lastName: "Y"),
                business: business
            ) { _ in DeviceRegistration(deviceKey: "other-phone", platform: .apns, token: "eeee", userAgent: nil) }
        }
        #expect(taken?.field == "email")
        #expect(try world.store.read { try $0.devices.find(id: 2) } == nil || device?.id == 2)
        #expect(try world.store.read { try $0.devices.all(userID: user.id) }.count == 1)
    }
}
