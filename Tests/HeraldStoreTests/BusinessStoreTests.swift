import HeraldModel
import HeraldStore
import Testing

@Suite("Store conformance: businesses")
struct BusinessStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func createAndFindBusinesses(_ backend: StoreBackend) throws {
        let store = try backend.make()
        let business = try store.createBusiness(
            name: "O'Brien's \"Diner\"; DROP TABLE businesses; --", clientID: "c1", sealedSecret: [9, 8],
            posKeyHash: "h1", at: at(0))
        #expect(business.name == "O'Brien's \"Diner\"; DROP TABLE businesses; --")
        #expect(try store.business(id: business.id) == business)
        #expect(try store.business(clientID: "c1") == business)
        #expect(try store.business(posKeyHash: "h1") == business)
        #expect(try store.business(clientID: "nope") == nil)
        #expect(try store.business(id: business.id + 100) == nil)
        #expect(throws: StoreError.self) {
            _ = try store.createBusiness(name: "Other", clientID: "c1", sealedSecret: [], posKeyHash: "h2", at: at(0))
        }
        var settings = BusinessSettings()
        settings.conversionThreshold = 100
        settings.welcomeOfferID = 7
        try store.updateSettings(businessID: business.id, settings)
        #expect(try store.business(id: business.id)?.settings == settings)
        #expect(try store.businesses().map(\.id) == [business.id])
    }

    @Test(arguments: StoreBackend.allCases)
    func credentialsReplaceAndBreak(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let id = fixture.business.id
        let credential = PushCredential(
            businessID: id, platform: .apns, settings: ["key_id": "ABCDEFGHIJ", "topic": "com.example"],
            sealedKey: [1, 2],
            updatedAt: at(10))
        try store.setCredential(credential)
        #expect(try store.credential(businessID: id, platform: .apns) == credential)
        #expect(try store.credential(businessID: id, platform: .fcm) == nil)

        try store.markCredential(
            businessID: id, platform: .apns, brokenReason: "InvalidProviderToken", observedAt: at(11))
        #expect(try store.credential(businessID: id, platform: .apns)?.brokenReason == "InvalidProviderToken")
        #expect(try store.brokenCredentials().count == 1)

        // A new key clears the mark; a failure seen before the new key was set doesn't re-mark it.
        var replaced = credential
        replaced.sealedKey = [3]
        replaced.updatedAt = at(20)
        try store.setCredential(replaced)
        #expect(try store.credential(businessID: id, platform: .apns)?.brokenReason == nil)
        try store.markCredential(businessID: id, platform: .apns, brokenReason: "late", observedAt: at(15))
        #expect(try store.credential(businessID: id, platform: .apns)?.brokenReason == nil)
        #expect(try store.brokenCredentials().isEmpty)

        #expect(throws: StoreError.self) {
            try store.setCredential(
                PushCredential(businessID: 999, platform: .fcm, settings: [:], sealedKey: [], updatedAt: at(0)))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func templatesAndLocations(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let id = fixture.business.id
        #expect(try store.template(businessID: id, event: .checkin) == nil)
        var template = NotificationTemplate.default(for: .checkin)!
        template.title = "Yay {{first_name}}"
        template.media = MediaAttachment(url: "https://cdn.example/a.jpg", type: "jpg")
        try store.saveTemplate(businessID: id, template, at: at(1))
        #expect(try store.template(businessID: id, event: .checkin) == template)
        template.enabled = false
        template.media = nil
        try store.saveTemplate(businessID: id, template, at: at(2))
        #expect(try store.template(businessID: id, event: .checkin) == template)
        #expect(try store.templates(businessID: id) == [template])
        var news = NotificationTemplate.default(for: .news)!
        news.body = "{{body}} (from {{business}})"
        try store.saveTemplate(businessID: id, news, at: at(3))
        #expect(try Set(store.templates(businessID: id).map(\.event)) == [.checkin, .news])

        let location = try store.createLocation(
            businessID: id, name: "Brooklyn Location", storeNumber: "0042", at: at(1))
        #expect(try store.location(businessID: id, id: location.id) == location)
        let other = try store.createBusiness(
            name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        #expect(try store.location(businessID: other.id, id: location.id) == nil)
        #expect(throws: StoreError.self) {
            _ = try store.createLocation(businessID: 999, name: "x", storeNumber: nil, at: at(1))
        }
    }
}
