import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// A campaign's fan-out to devices of Punchh's mobile API (no SDK), on every backend: each user gets one entry,
/// pushed to each of their devices however the batches split them, and the campaign's offer once.
@Suite("Domain conformance: campaigns to Punchh apps")
struct PunchhFanOutTests {
    @Test(arguments: StoreBackend.allCases)
    func eachUserGetsOneEntryPushedToEachDeviceAndTheOfferOnceEvenWhenTheFanOutRunsAgain(_ backend: StoreBackend)
        throws
    {
        let world = try StoreFixture(backend)
        // Three users with two phones each: batches of four split two users' phones across batches.
        var users: [User] = []
        for index in 0..<3 {
            let user = try world.addUser("u\(index)@example.com")
            try world.register(user, key: "phone-a-\(index)", token: "tokenA\(index)")
            try world.register(user, key: "phone-b-\(index)", token: "tokenB\(index)")
            users.append(user)
        }
        let fries = try world.store.transaction {
            try $0.offers.insert(
                Offer(
                    id: 0, businessID: world.business.id, name: "Free Fries", description: "", imageURL: nil,
                    media: nil, discount: Money(cents: 300), availableFrom: nil, availableUntil: nil, expiresAt: nil,
                    validForSeconds: 3600, createdAt: world.clock.now),
                at: world.clock.now)
        }
        let service = CampaignService(store: world.store, clock: world.clock.wallClock)
        let fanOut = CampaignFanOut(
            store: world.store, notifications: world.notifications, clock: world.clock.wallClock, batchSize: 4)
        let campaign = try service.create(
            CampaignSpec(
                name: "Fries", message: .init(headline: "Free fries", body: "On us", offerID: fries.id),
                audience: .userIDs(users.map(\.id)), channels: [.push, .inbox], trigger: .now),
            business: world.business)
        _ = try service.launch(business: world.business, id: campaign.id)
        func runToTheEnd() throws {
            while try !fanOut.step(campaign: campaign.id).finished {}
        }
        try runToTheEnd()

        func state(_ user: User) throws -> (entries: [InboxEntry], pushes: Int, rewards: Int) {
            let entries = try world.entries(of: user).filter { $0.draft.campaignID == campaign.id }
            let pushes = try entries.reduce(0) { $0 + (try world.deliveries(of: $1).count) }
            let rewards = try world.store.read { try $0.offers.live(userID: user.id, at: world.clock.now) }.count
            return (entries, pushes, rewards)
        }
        for user in users {
            let (entries, pushes, rewards) = try state(user)
            #expect(entries.count == 1, "one entry for \(user.email)")
            #expect(pushes == 2, "pushed to both of \(user.email)'s phones")
            #expect(rewards == 1 && entries.first?.draft.rewardID != nil, "granted once, carried by the entry")
            #expect(entries.first?.draft.extras["r"]?.int64Value == entries.first?.draft.rewardID)
        }
        #expect(try world.store.read { try $0.campaigns.counters(campaignID: campaign.id) }["granted"] == 3)

        // The fan-out runs over the same audience again (a batch written again after a crash, say): nothing twice.
        _ = try world.store.database.write { db in
            try db.execute("UPDATE campaigns SET status = 'running', fanout_cursor = 0 WHERE id = \(campaign.id)")
        }
        try runToTheEnd()
        for user in users {
            let (entries, pushes, rewards) = try state(user)
            #expect(entries.count == 1 && pushes == 2 && rewards == 1, "nothing twice for \(user.email)")
        }
        #expect(try world.store.read { try $0.campaigns.counters(campaignID: campaign.id) }["granted"] == 3)
    }

    @Test(
        .bug(id: "issue-40-6", "a token two users' devices held kept both users' pushes on one phone"),
        arguments: StoreBackend.allCases)
    func aPhoneIsPushedAsTheLatestUserSignedInOnItAndNeverSilencedByAnInstallOfNobody(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let (ann, bob, cat) = (world.user, try world.addUser("bob@example.com"), try world.addUser("cat@example.com"))
        // Ann's phone is Bob's now: he signed in on it with its token, she never signed out. Cat has a phone of her
        // own, whose token a stranger's install (of nobody) sends too.
        let annsOld = try world.register(ann, key: "phone-ann", token: "shared", at: at(1))
        let bobsNew = try world.register(bob, key: "phone-bob", token: "shared", at: at(2))
        let catsPhone = try world.register(cat, key: "phone-cat", token: "cats", at: at(3))
        let stranger = try DeviceService(store: world.store, clock: world.clock.wallClock).register(
            installID: "stranger", details: DeviceWorld.details(token: .some("cats")), business: world.business,
            workspace: .live, credential: IssuedCredential(keyID: "key-stranger", sealedSecret: [1]))
        #expect(stranger.device.token == nil, "an install of nobody takes no token from a user's device")
        #expect(try world.store.read { try $0.devices.find(id: annsOld.id) }?.token == nil, "the phone is Bob's")

        let service = CampaignService(store: world.store, clock: world.clock.wallClock)
        let fanOut = CampaignFanOut(
            store: world.store, notifications: world.notifications, clock: world.clock.wallClock, batchSize: 1)
        /// A push-and-inbox campaign to `audience`, launched and fanned out to the end: its id.
        func send(_ name: String, to audience: CampaignSpec.Audience) throws -> Int64 {
            let campaign = try service.create(
                CampaignSpec(
                    name: name, message: .init(headline: "Hello", body: name), audience: audience,
                    channels: [.push, .inbox], trigger: .now),
                business: world.business)
            _ = try service.launch(business: world.business, id: campaign.id)
            while try !fanOut.step(campaign: campaign.id).finished {}
            return campaign.id
        }
        /// `user`'s entries of campaign `id`, and the devices they were pushed to.
        func state(_ user: User, _ id: Int64) throws -> (entries: Int, pushedTo: [Int64]) {
            let entries = try world.entries(of: user).filter { $0.draft.campaignID == id }
            return (entries.count, try entries.flatMap { try world.deliveries(of: $0).map(\.deviceID) })
        }

        // To everyone: each phone pushed once, Ann's old one as Bob's; Ann still finds the campaign in her inbox.
        let everyone = try send("Everyone", to: .all)
        let (annsState, bobsState, catsState) = (
            try state(ann, everyone), try state(bob, everyone), try state(cat, everyone)
        )
        #expect(annsState.entries == 1 && annsState.pushedTo.isEmpty, "\(annsState)")
        #expect(bobsState.entries == 1 && bobsState.pushedTo == [bobsNew.id], "\(bobsState)")
        #expect(catsState.entries == 1 && catsState.pushedTo == [catsPhone.id], "\(catsState)")
        // To Ann and Cat: Cat's phone is pushed (the stranger's install silences nothing); Bob's phone is not Ann's.
        let some = try send("Some", to: .userIDs([ann.id, cat.id]))
        let (annsShare, catsShare) = (try state(ann, some), try state(cat, some))
        #expect(annsShare.entries == 1 && annsShare.pushedTo.isEmpty, "\(annsShare)")
        #expect(catsShare.entries == 1 && catsShare.pushedTo == [catsPhone.id], "\(catsShare)")
        // Nor does Ann's news reach the phone.
        let news = try world.publish([world.draft(ann)])
        #expect(try world.deliveries(of: news[0]).isEmpty)
    }
}
