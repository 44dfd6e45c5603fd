import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
@_spi(NotificationWriter) import HeraldStore
import HeraldTesting
import Testing

@Suite("Store conformance: users and sessions")
struct UserStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func usersAreUniquePerBusiness(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let id = world.business.id
        #expect(try store.read { try $0.users.find(businessID: id, email: "ann@example.com") } == world.user)
        #expect(try store.read { try $0.users.find(businessID: id, id: world.user.id) } == world.user)
        let taken = #expect(throws: StoreError.self, "a taken email was accepted") {
            try world.addUser("ann@example.com")
        }
        #expect(taken?.code == .conflict && taken?.field == "email")
        // The same email at another business is another person.
        let other = try store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        }
        let twin = try store.transaction {
            try $0.users.insert(
                NewUser(
                    businessID: other.id, email: "ann@example.com", passwordHash: "h", firstName: "A", lastName: "B"),
                at: at(0))
        }
        #expect(try store.read { try $0.users.find(businessID: id, id: twin.id) } == nil)

        let bob = try world.addUser("bob@example.com", phone: "5551234")
        #expect(try store.read { try $0.users.find(businessID: id, phone: "5551234") }?.id == bob.id)
        let phoneTaken = #expect(throws: StoreError.self) { try world.addUser("carl@example.com", phone: "5551234") }
        #expect(phoneTaken?.field == "phone")

        world.clock.set(at(5))
        let updated = try world.accounts.updateProfile(
            user: bob, UserChanges(firstName: "Robert", lastName: "'); DELETE FROM users; --"), device: nil)
        #expect(updated.firstName == "Robert")
        #expect(try world.reload(bob) == updated)
        #expect(updated.updatedAt == at(5))
        let emailTaken = #expect(throws: StoreError.self) {
            try world.accounts.updateProfile(user: bob, UserChanges(email: "ann@example.com"), device: nil)
        }
        #expect(emailTaken?.field == "email")
        var stranger = bob
        stranger.businessID = other.id
        #expect(throws: DomainError.self) {
            try world.accounts.updateProfile(user: stranger, UserChanges(), device: nil)
        }
        let cleared = try world.accounts.updateProfile(user: bob, UserChanges(phone: .some(nil)), device: nil)
        #expect(cleared.phone == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func sessionsRevoke(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let device = try world.register(world.user, key: "d", token: "t")
        world.clock.set(at(1))
        let session = try world.accounts.startSession(
            tokenHash: "abc", user: world.user, deviceID: device.id, expiresAt: at(100))
        #expect(try store.read { try $0.sessions.find(tokenHash: "abc") } == session)
        let joined = try store.read { try $0.sessions.findWithUser(tokenHash: "abc") }
        #expect(joined?.session == session)
        #expect(joined?.user == world.user)
        #expect(try store.read { try $0.sessions.findWithUser(tokenHash: "nope") } == nil)
        #expect(session.isActive(at: at(50)))
        #expect(!session.isActive(at: at(100)))
        world.clock.set(at(2))
        try world.accounts.logOut(session: session, user: world.user, deviceKey: nil)
        let revoked = try store.read { try $0.sessions.find(tokenHash: "abc") }
        #expect(revoked?.revokedAt == at(2))
        #expect(revoked?.isActive(at: at(3)) == false)
        #expect(try store.read { try $0.devices.find(id: device.id) }?.token == nil, "its device hears no more")
        let reused = #expect(throws: StoreError.self) {
            try world.accounts.startSession(tokenHash: "abc", user: world.user, deviceID: nil, expiresAt: at(100))
        }
        #expect(reused?.code == .conflict)
    }

    @Test("every commit changes the change count; the delivery queue's writes do not", arguments: StoreBackend.allCases)
    func changeCountFollowsCommits(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let store = world.store
        let before = store.changeCount
        _ = try store.read { try $0.users.find(businessID: world.business.id, id: world.user.id) }
        #expect(store.changeCount == before, "a read is no change")
        try world.register(world.user, key: "d", token: "t")
        let afterWrite = store.changeCount
        #expect(afterWrite > before)
        _ = try store.deliveryQueue.claim(owner: "n", limit: 10, leaseUntil: at(100), at: at(1))
        #expect(store.changeCount == afterWrite, "claims touch nothing a cache holds")
        store.noteChangeElsewhere()
        #expect(store.changeCount > afterWrite, "another node's change counts")
    }
}

@Suite("Store conformance: rows written many a statement")
struct InsertRowsTests {
    /// Text that array syntax gives a meaning to, which PostgreSQL reads back out of a bound array.
    static let names = [
        "", "NULL", "null", "\"quoted\"", "back\\slash", "{braces}", "a,b", " spaced ", "Zoë 東京 🚀", "'; --",
        "\\\"", "tab\there",
    ]

    /// `insertRows` writes an import's users as `VALUES` lists and a campaign's entries from arrays (a column's
    /// values bound as one, on PostgreSQL): awkward text, columns NULL in some rows or in every row (media, reward),
    /// and more rows than one statement carries must all come back as written.
    @Test(arguments: StoreBackend.allCases)
    func awkwardValuesComeBackAsWritten(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let business = world.business.id
        let names = Self.names
        let users = (0..<1_100).map { index in
            User(
                id: 0, businessID: business, email: nil, passwordHash: "", firstName: names[index % names.count],
                lastName: names[(index + 3) % names.count], externalID: "x\(index)" + names[index % names.count],
                attributes: ["n": .int(Int64(index))], createdAt: at(Int64(index)), updatedAt: at(1))
        }
        let created = try world.store.transaction { try $0.users.insertImported(users) }
        #expect(created.count == users.count)
        for (user, written) in zip(users, created) {
            var expected = user
            expected.id = written.id
            #expect(try world.store.read { try $0.users.find(businessID: business, id: written.id) } == expected)
        }

        let devices = try world.store.transaction { tx in
            try tx.devices.insertImported(
                created.map { user in
                    Device(
                        id: 0, businessID: business, userID: user.id, deviceKey: "k\(user.id)", platform: .apns,
                        token: "t\(user.id)", tokenUpdatedAt: at(0), userAgent: nil, createdAt: at(0), updatedAt: at(0))
                })
        }
        let drafts = devices.enumerated().map { index, device in
            (
                draft: NotificationDraft(
                    businessID: business, userID: device.userID, kind: .campaign, event: "campaign",
                    title: names[index % names.count],
                    subtitle: index % 2 == 0 ? nil : names[(index + 5) % names.count],
                    body: names[(index + 7) % names.count] + "\n", extras: ["k": .string(names[index % names.count])],
                    collapseID: index % 3 == 0 ? names[(index + 1) % names.count] : nil, deviceID: device.id,
                    pullable: index % 2 == 0),
                createdAt: at(Int64(index))
            )
        }
        let entries = try world.store.transaction { try $0.inbox.insert(drafts) }
        #expect(entries.map(\.draft) == drafts.map(\.draft))
        for entry in entries {
            #expect(try world.store.read { try $0.inbox.find(id: entry.id) } == entry)
        }
    }
}
