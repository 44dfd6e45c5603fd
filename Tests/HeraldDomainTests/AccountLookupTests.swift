import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Domain conformance: finding users and the devices they call from")
struct AccountLookupTests {
    @Test(arguments: StoreBackend.allCases)
    func aUserIsFoundByIdEmailOrPhoneAndAMissIsOnItsField(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let bob = try world.addUser("bob@example.com", phone: "+15550100")
        let businessID = world.business.id
        #expect(try world.accounts.user(businessID: businessID, .id(bob.id)).id == bob.id)
        #expect(try world.accounts.user(businessID: businessID, .email("bob@example.com")).id == bob.id)
        #expect(try world.accounts.user(businessID: businessID, .phone("+15550100")).id == bob.id)

        #expect(throws: DomainError(.notFound, field: "user_id", "no such user")) {
            try world.accounts.user(businessID: businessID, .id(9999))
        }
        #expect(throws: DomainError(.notFound, field: "email", "no user with this email")) {
            try world.accounts.user(businessID: businessID, .email("carol@example.com"))
        }
        #expect(throws: DomainError(.notFound, field: "phone", "no user with this phone number")) {
            try world.accounts.user(businessID: businessID, .phone("+15550199"))
        }
        // Another business's user is no user of this one.
        #expect(throws: DomainError(.notFound, field: "user_id", "no such user")) {
            try world.accounts.user(businessID: businessID + 1, .id(bob.id))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func anEmailIsTakenOnlyByAUserWhoSignedUp(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let businessID = world.business.id
        #expect(throws: DomainError(.conflict, field: "email", "has already been taken")) {
            try world.accounts.checkEmailAvailable(businessID: businessID, email: "ann@example.com")
        }
        try world.accounts.checkEmailAvailable(businessID: businessID, email: "carol@example.com")
        try world.accounts.checkEmailAvailable(businessID: businessID + 1, email: "ann@example.com")
        // A user an import made (no password) is waiting to sign up into that record.
        let imported = try world.store.transaction {
            try $0.users.insert(
                NewUser(
                    businessID: businessID, email: "dan@example.com", passwordHash: "", firstName: "D", lastName: ""),
                at: at(0))
        }
        #expect(imported.awaitsSignUp)
        try world.accounts.checkEmailAvailable(businessID: businessID, email: "dan@example.com")
        #expect(try world.accounts.user(businessID: businessID, email: "dan@example.com")?.id == imported.id)
        #expect(try world.accounts.user(businessID: businessID, email: "erin@example.com") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func aCallNamingNoDeviceComesFromItsSessionsDeviceWhileItIsTheUsers(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let ann = world.user
        let bob = try world.addUser("bob@example.com")
        let phone = try world.register(ann, key: "device-A", token: "aaaa", at: at(1))
        #expect(try world.accounts.deviceKey(userID: ann.id, platform: .apns, sessionDeviceID: phone.id) == "device-A")
        // Without a session's device, or with one that is not (or no longer) theirs: the user's own key.
        #expect(
            try world.accounts.deviceKey(userID: ann.id, platform: .fcm, sessionDeviceID: nil) == "user:\(ann.id):fcm")
        #expect(
            try world.accounts.deviceKey(userID: bob.id, platform: .apns, sessionDeviceID: phone.id)
                == "user:\(bob.id):apns")
        #expect(
            try world.accounts.deviceKey(userID: ann.id, platform: .apns, sessionDeviceID: 9999)
                == "user:\(ann.id):apns")
    }
}
