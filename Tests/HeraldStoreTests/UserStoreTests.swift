import HeraldModel
import HeraldStore
import Testing

@Suite("Store conformance: users, devices, sessions")
struct UserStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func usersAreUniquePerBusiness(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let id = fixture.business.id
        #expect(try store.user(businessID: id, email: "ann@example.com") == fixture.user)
        #expect(try store.user(businessID: id, id: fixture.user.id) == fixture.user)
        do {
            _ = try fixture.addUser("ann@example.com")
            Issue.record("a taken email was accepted")
        } catch let error as StoreError {
            #expect(error.code == .conflict)
            #expect(error.field == "email")
        }
        // The same email at another business is another person.
        let other = try store.createBusiness(
            name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        let twin = try store.createUser(
            NewUser(businessID: other.id, email: "ann@example.com", passwordHash: "h", firstName: "A", lastName: "B"),
            at: at(0))
        #expect(try store.user(businessID: id, id: twin.id) == nil)

        let bob = try store.createUser(
            NewUser(
                businessID: id, email: "bob@example.com", passwordHash: "h", firstName: "Bob", lastName: "O'Neil",
                phone: "5551234"),
            at: at(0))
        #expect(try store.user(businessID: id, phone: "5551234")?.id == bob.id)
        #expect(throws: StoreError.self) {
            _ = try store.createUser(
                NewUser(
                    businessID: id, email: "carl@example.com", passwordHash: "h", firstName: "C", lastName: "D",
                    phone: "5551234"),
                at: at(0))
        }
        let updated = try store.updateUser(
            businessID: id, id: bob.id, UserChanges(firstName: "Robert", lastName: "'); DELETE FROM users; --"),
            at: at(5))
        #expect(updated.firstName == "Robert")
        #expect(try store.user(businessID: id, id: bob.id) == updated)
        #expect(updated.updatedAt == at(5))
        #expect(throws: StoreError.self) {
            _ = try store.updateUser(businessID: id, id: bob.id, UserChanges(email: "ann@example.com"), at: at(6))
        }
        #expect(throws: StoreError.self) {
            _ = try store.updateUser(businessID: other.id, id: bob.id, UserChanges(), at: at(6))
        }
        let cleared = try store.updateUser(businessID: id, id: bob.id, UserChanges(phone: .some(nil)), at: at(7))
        #expect(cleared.phone == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func tokensMoveClearAndFollowTheDevice(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let ann = fixture.user
        let bob = try fixture.addUser("bob@example.com")

        let phone = try fixture.register(ann, key: "device-A", token: "aaaa")
        #expect(phone.token == "aaaa")
        #expect(phone.userAgent == "Tests/1.0")
        #expect(phone.tokenUpdatedAt == at(1))

        // Another user registers the same token from another install: it moves to them.
        let bobPhone = try fixture.register(bob, key: "device-B", token: "aaaa", at: at(2))
        #expect(bobPhone.token == "aaaa")
        #expect(try store.device(id: phone.id)?.token == nil)

        // Same device, same token again: registered anew (Apple's 410 timestamp is compared with this).
        let again = try fixture.register(bob, key: "device-B", token: "aaaa", at: at(3))
        #expect(again.tokenUpdatedAt == at(3))

        // Registering without a token leaves it; "" (nil) clears it.
        #expect(try fixture.register(bob, key: "device-B", token: nil, at: at(4)).token == "aaaa")
        #expect(try fixture.register(bob, key: "device-B", token: .some(nil), at: at(5)).token == nil)

        // A device that changes hands does not carry the old user's token.
        try fixture.register(ann, key: "device-C", token: "cccc")
        let handedOver = try fixture.register(bob, key: "device-C", token: nil, at: at(6))
        #expect(handedOver.userID == bob.id)
        #expect(handedOver.token == nil)
        #expect(try store.devices(userID: ann.id).allSatisfy { $0.token == nil })

        try fixture.register(bob, key: "device-D", token: "dddd", platform: .fcm)
        let fcmDevice = try store.devices(userID: bob.id).first { $0.deviceKey == "device-D" }!
        #expect(fcmDevice.platform == .fcm)
        try store.clearToken(deviceID: fcmDevice.id, at: at(9))
        #expect(try store.device(id: fcmDevice.id)?.token == nil)
        #expect(throws: StoreError.self) {
            _ = try store.registerDevice(
                businessID: fixture.business.id, userID: 999,
                DeviceRegistration(deviceKey: "z", platform: .apns, token: "z", userAgent: nil), at: at(1))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func sessionsRevoke(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let device = try fixture.register(fixture.user, key: "d", token: "t")
        let session = try store.createSession(
            tokenHash: "abc", businessID: fixture.business.id, userID: fixture.user.id, deviceID: device.id,
            expiresAt: at(100), at: at(1))
        #expect(try store.session(tokenHash: "abc") == session)
        let joined = try store.sessionWithUser(tokenHash: "abc")
        #expect(joined?.session == session)
        #expect(joined?.user == fixture.user)
        #expect(try store.sessionWithUser(tokenHash: "nope") == nil)
        #expect(session.isActive(at: at(50)))
        #expect(!session.isActive(at: at(100)))
        try store.revokeSession(id: session.id, at: at(2))
        let revoked = try store.session(tokenHash: "abc")
        #expect(revoked?.revokedAt == at(2))
        #expect(revoked?.isActive(at: at(3)) == false)
        #expect(try store.session(tokenHash: "missing") == nil)
    }
}
