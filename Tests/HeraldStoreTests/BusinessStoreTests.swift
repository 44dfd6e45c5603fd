import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Testing

@Suite("Store conformance: businesses")
struct BusinessStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func createAndFindBusinesses(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let business = try store.transaction {
            try $0.businesses.insert(
                name: "O'Brien's \"Diner\"; DROP TABLE businesses; --", clientID: "c1", sealedSecret: [9, 8],
                posKeyHash: "h1", at: at(0))
        }
        #expect(business.name == "O'Brien's \"Diner\"; DROP TABLE businesses; --")
        try store.read { tx throws in
            #expect(try tx.businesses.find(id: business.id) == business)
            #expect(try tx.businesses.find(clientID: "c1") == business)
            #expect(try tx.businesses.find(posKeyHash: "h1") == business)
            #expect(try tx.businesses.find(clientID: "nope") == nil)
            #expect(try tx.businesses.find(id: business.id + 100) == nil)
        }
        let taken = #expect(throws: StoreError.self) {
            try store.transaction {
                try $0.businesses.insert(name: "Other", clientID: "c1", sealedSecret: [], posKeyHash: "h2", at: at(0))
            }
        }
        #expect(
            taken?.code == .conflict && taken?.field == "client", "the constraint names the field (as the API calls it)"
        )
        var settings = BusinessSettings()
        settings.conversionThreshold = 100
        settings.welcomeOfferID = 7
        settings.conversionCurrencyAmount = Money(cents: 250)
        #expect(try store.transaction { try $0.businesses.updateSettings(id: business.id, settings) })
        #expect(try store.transaction { try $0.businesses.updateSettings(id: 999, settings) } == false)
        #expect(try store.read { try $0.businesses.find(id: business.id) }?.settings == settings)
        #expect(try store.read { try $0.businesses.all() }.map(\.id) == [business.id])
    }

    @Test(arguments: StoreBackend.allCases)
    func credentialsReplaceAndBreak(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let queue = store.deliveryQueue
        let id = world.business.id
        let credential = PushCredential(
            businessID: id, platform: .apns, settings: ["key_id": "ABCDEFGHIJ", "topic": "com.example"],
            sealedKey: [1, 2], updatedAt: at(10))
        func stored(_ platform: PushPlatform = .apns) throws -> PushCredential? {
            try store.read { try $0.credentials.find(businessID: id, platform: platform) }
        }
        try store.transaction { try $0.credentials.save(credential) }
        #expect(try stored() == credential)
        #expect(try stored(.fcm) == nil)

        #expect(
            try queue.markCredentialBroken(
                businessID: id, platform: .apns, reason: "InvalidProviderToken", observedAt: at(11)))
        #expect(try stored()?.brokenReason == "InvalidProviderToken")
        #expect(try queue.brokenCredentials().count == 1)

        // A new key clears the mark; a failure seen before the new key was set doesn't re-mark it.
        var replaced = credential
        replaced.sealedKey = [3]
        replaced.updatedAt = at(20)
        try store.transaction { try $0.credentials.save(replaced) }
        #expect(try stored()?.brokenReason == nil)
        #expect(
            try !queue.markCredentialBroken(businessID: id, platform: .apns, reason: "late", observedAt: at(15)))
        #expect(try stored()?.brokenReason == nil)
        #expect(try queue.brokenCredentials().isEmpty)

        #expect(throws: StoreError.self, "a credential of no business") {
            try store.transaction {
                try $0.credentials.save(
                    PushCredential(businessID: 999, platform: .fcm, settings: [:], sealedKey: [], updatedAt: at(0)))
            }
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func templatesAndLocations(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let id = world.business.id
        func saved(_ event: EventName) throws -> NotificationTemplate? {
            try store.read { try $0.templates.find(businessID: id, event: event) }
        }
        #expect(try saved(.checkin) == nil)
        var template = NotificationTemplate.default(for: .checkin)!
        template.title = "Yay {{first_name}}"
        template.media = MediaAttachment(url: "https://cdn.example/a.jpg", type: "jpg")
        try store.transaction { try $0.templates.save(businessID: id, template, at: at(1)) }
        #expect(try saved(.checkin) == template)
        template.enabled = false
        template.media = nil
        try store.transaction { try $0.templates.save(businessID: id, template, at: at(2)) }
        #expect(try saved(.checkin) == template)
        #expect(try store.read { try $0.templates.all(businessID: id) } == [template])
        var news = NotificationTemplate.default(for: .news)!
        news.body = "{{body}} (from {{business}})"
        try store.transaction { try $0.templates.save(businessID: id, news, at: at(3)) }
        #expect(try Set(store.read { try $0.templates.all(businessID: id) }.map(\.event)) == [.checkin, .news])

        let location = try store.transaction {
            try $0.locations.insert(businessID: id, name: "Brooklyn Location", storeNumber: "0042", at: at(1))
        }
        #expect(try store.read { try $0.locations.find(businessID: id, id: location.id) } == location)
        let other = try store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        }
        #expect(try store.read { try $0.locations.find(businessID: other.id, id: location.id) } == nil)
        #expect(throws: StoreError.self) {
            try store.transaction { try $0.locations.insert(businessID: 999, name: "x", storeNumber: nil, at: at(1)) }
        }
    }
}
