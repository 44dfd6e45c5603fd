import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The rules behind what an operator does by hand — news, settings, templates, lookups — tested on the domain
/// itself, on every backend (the admin API's tests check only how the API words them).
@Suite("Domain conformance: operators")
struct OperatorServicesTests {
    @Test(arguments: StoreBackend.allCases)
    func newsGoesOnlyToTheBusinessesOwnUsersAndNeverWhenItsTemplateIsOff(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let news = NewsService(store: world.store, notifications: world.notifications, clock: world.clock.wallClock)
        let item = NewsService.News(title: "New menu", body: "Try it")
        let other = try world.store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [1], posKeyHash: "p2", at: at(0))
        }
        let stranger = try world.store.transaction {
            try $0.users.insert(
                NewUser(businessID: other.id, email: "s@example.com", passwordHash: "h", firstName: "S", lastName: "T"),
                at: at(0))
        }
        #expect(throws: DomainError(.invalid, field: "user_ids", "unknown users: \(stranger.id)")) {
            try news.send(item, business: world.business, to: [world.user.id, stranger.id])
        }
        #expect(try world.entries(of: world.user).isEmpty, "nothing written when one user is refused")

        let sent = try news.send(item, business: world.business, to: [world.user.id])
        #expect(sent.map(\.title) == ["New menu"] && sent[0].extras["u"]?.int64Value == world.user.id)

        var template = try #require(NotificationTemplate.default(for: .news))
        template.enabled = false
        let templates = TemplateService(
            store: world.store, notifications: world.notifications, clock: world.clock.wallClock)
        try templates.save(businessID: world.business.id, template)
        #expect(throws: DomainError.self) { try news.send(item, business: world.business, to: [world.user.id]) }
        #expect(try world.entries(of: world.user).count == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func aNewsPushThatWouldPassApplesLimitIsRefusedBeforeAnythingIsWritten(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let news = NewsService(store: world.store, notifications: world.notifications, clock: world.clock.wallClock)
        let long = String(repeating: "\u{1F354}", count: 1500)
        #expect(throws: DomainError.self) {
            try news.send(.init(title: "Big", body: long), business: world.business, to: [world.user.id])
        }
        #expect(try world.entries(of: world.user).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aTemplateWhosePushCouldPassApplesLimitIsNotSaved(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let templates = TemplateService(
            store: world.store, notifications: world.notifications, clock: world.clock.wallClock)
        var template = try #require(NotificationTemplate.default(for: .checkin))
        template.body = String(repeating: "{{location}} ", count: 10)
        #expect(throws: DomainError.self) { try templates.save(businessID: world.business.id, template) }
        #expect(try templates.find(businessID: world.business.id, event: .checkin)?.customized == false)
    }

    @Test(arguments: StoreBackend.allCases)
    func settingsNameOnlyTheBusinessesOwnOffers(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let businesses = BusinessService(
            store: world.store, sealer: try SecretSealer(key: Array(repeating: 7, count: 32)),
            clock: world.clock.wallClock)
        let fries = try world.offer()
        var settings = world.business.settings
        settings.conversionThreshold = 100
        #expect(
            try businesses.problems(settings, business: world.business) == [
                Problem("conversion_offer_id", "is required when points convert into a reward")
            ])
        settings.conversionOfferID = fries.id + 1000
        settings.welcomeOfferID = fries.id
        #expect(
            try businesses.problems(settings, business: world.business) == [
                Problem("conversion_offer_id", "must be the id of one of this business's offers")
            ])
        #expect(throws: DomainError.self) { try businesses.updateSettings(business: world.business, settings) }
        settings.conversionOfferID = fries.id
        try businesses.updateSettings(business: world.business, settings)
        #expect(try businesses.find(id: world.business.id)?.settings == settings)
    }

    @Test(arguments: StoreBackend.allCases)
    func lookupsStayWithinTheBusinessTheyName(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let directory = DirectoryService(store: world.store)
        let entry = try world.publish([world.draft(world.user)], at: at(1))[0]
        let other = try world.store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [1], posKeyHash: "p2", at: at(0))
        }
        #expect(
            try directory.deliveries(businessID: other.id, notificationID: entry.id, limit: 10, offset: 0) == nil)
        #expect(
            try directory.deliveries(businessID: world.business.id, notificationID: entry.id, limit: 10, offset: 0)
                != nil)
        #expect(try directory.entries(businessID: other.id, userID: nil, limit: 10, offset: 0).isEmpty)
        #expect(try directory.users(businessID: other.id, email: "ann@example.com", limit: 10, offset: 0).isEmpty)
        #expect(
            try directory.users(businessID: world.business.id, email: "ann@example.com", limit: 10, offset: 0).map(\.id)
                == [world.user.id])
    }
}
