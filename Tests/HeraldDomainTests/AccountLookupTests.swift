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
}
