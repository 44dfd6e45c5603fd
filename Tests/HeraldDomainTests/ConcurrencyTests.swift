import Dispatch
import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// Two nodes racing on one database: each call through its own connection (its own `Store`), at the same moment.
/// One wins; the other is a repeat or a clear refusal — never a second debit, a second account, a second
/// redemption. (On SQLite the database serialises whole write transactions; on PostgreSQL they interleave, and
/// only the guarded updates and constraints keep these true.)
@Suite("Domain conformance: racing nodes")
struct ConcurrencyTests {
    /// Runs `body(0…count-1)` on `count` threads released together; returns each run's result.
    private func race<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [Result<
        T, any Error
    >] {
        let results = Mutex<[Int: Result<T, any Error>]>([:])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            DispatchQueue.global().async {
                gate.wait()
                let result = Result { try body(index) }
                results.withLock { $0[index] = result }
                done.leave()
            }
        }
        for _ in 0..<count { gate.signal() }
        done.wait()
        return results.withLock { all in (0..<count).map { all[$0]! } }
    }

    /// A second node's services over its own connection to `world`'s database.
    private func node(_ world: StoreFixture) throws -> (store: Store, loyalty: LoyaltyService, accounts: AccountService)
    {
        let store = try world.backend.reopen(world.path)
        let notifications = NotificationService()
        let loyalty = LoyaltyService(store: store, notifications: notifications, clock: world.clock.wallClock)
        return (
            store, loyalty,
            AccountService(store: store, notifications: notifications, loyalty: loyalty, clock: world.clock.wallClock)
        )
    }

    @Test("two voids of one check-in debit its points once", arguments: StoreBackend.allCases)
    func twoVoids(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let checkin = try world.checkin(
            NewCheckin(userID: world.user.id, locationID: place.id, points: 40, source: "qr", transactionID: "V-1"),
            at: at(1))
        _ = try world.checkin(
            NewCheckin(userID: world.user.id, locationID: place.id, points: 10, source: "qr", transactionID: "V-2"),
            at: at(1))
        let nodes: [LoyaltyService] = [world.loyalty, try node(world).loyalty]
        let business = world.business
        world.clock.set(at(2))
        let results = race(8) { index -> CheckinResult in
            try nodes[index % 2].changeCheckin(
                business: business, id: checkin.checkin.id, from: [.approved, .pending], to: .void, event: .checkinVoid)
        }
        let answers: [CheckinResult] = try results.map { try $0.get() }
        #expect(answers.filter(\.created).count == 1, "one void; the others are its repeat")
        #expect(Set(answers.compactMap(\.notification?.id)).count == 1, "one notification")
        #expect(try world.reload(world.user).points == 10, "40 points taken back once")
        #expect(try world.entries(of: world.user).filter { $0.event == "checkin_void" }.count == 1)
    }

    @Test(
        "the record-level guard refuses a change from a status the check-in no longer has",
        arguments: StoreBackend.allCases)
    func staleStatusIsRefused(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let checkin = try world.checkin(
            NewCheckin(userID: world.user.id, locationID: place.id, points: 5, source: "qr", transactionID: "G-1"),
            at: at(1))
        let id = checkin.checkin.id
        // As a second node would after reading "approved" before the first node's void committed.
        #expect(
            try world.store.transaction {
                try $0.checkins.changeStatus(id: id, from: [.approved], to: .void, isFirst: true, at: at(2))
            })
        #expect(
            try !world.store.transaction {
                try $0.checkins.changeStatus(id: id, from: [.approved], to: .void, isFirst: true, at: at(3))
            })
    }

    @Test("two sign-ups with one email make one account", arguments: StoreBackend.allCases)
    func twoSignUps(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let winner = try signUpsRace(world, email: "eve@example.com", firstName: "Eve")
        #expect(try world.entries(of: winner).map(\.event) == ["signup"], "one welcome")
    }

    @Test(
        "two sign-ups into one imported user: one claims it, the other finds the email taken",
        arguments: StoreBackend.allCases)
    func twoSignUpsIntoAnImportedUser(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let business = world.business
        let imported = try world.store.transaction { tx in
            try tx.users.insertImported(
                businessID: business.id, externalID: "crm-1", email: "fay@example.com", firstName: "Fay",
                lastName: "Imported", attributes: ["tier": "gold"], at: at(1))
        }
        let winner = try signUpsRace(world, email: "fay@example.com", firstName: "")
        let user = try #require(try world.store.read { try $0.users.find(businessID: business.id, id: imported.id) })
        #expect(winner.id == imported.id && user.passwordHash == winner.passwordHash)
        #expect(user.firstName == "Fay" && user.lastName == winner.lastName && user.attributes == ["tier": "gold"])
        #expect(try world.entries(of: user).map(\.event) == ["signup"], "one welcome")
    }

    /// Six sign-ups with `email` at once on two nodes, each with its own password hash and last name: exactly one
    /// wins (returned), the others fail as a conflict on `email`.
    private func signUpsRace(_ world: StoreFixture, email: String, firstName: String) throws -> User {
        let nodes = [world.accounts, try node(world).accounts]
        let business = world.business
        let results = race(6) { index in
            try nodes[index % 2].signUp(
                NewUser(
                    businessID: business.id, email: email, passwordHash: "h\(index)", firstName: firstName,
                    lastName: "Lee\(index)"),
                business: business, emailProven: true
            ) { _ in nil }.user
        }
        let winners = results.compactMap { try? $0.get() }
        try #require(winners.count == 1)
        for case .failure(let error) in results {
            #expect((error as? StoreError)?.code == .conflict && (error as? StoreError)?.field == "email")
        }
        return winners[0]
    }

    @Test("two honours of one code make one redemption", arguments: StoreBackend.allCases)
    func twoRedemptions(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let reward = try world.grant(try world.offer(), to: [world.user.id], at: at(1))[0].reward
        let code = try #require(try world.code(reward.id, for: world.user, at: at(2)).redemptionCode)
        let nodes = [world.loyalty, try node(world).loyalty]
        let business = world.business
        world.clock.set(at(3))
        let results = race(8) { index in
            try nodes[index % 2].honorRedemptionCode(
                business: business, code: code, locationID: place.id, transactionID: nil)
        }
        #expect(results.compactMap { try? $0.get() }.count == 1, "one honour wins")
        for case .failure(let error) in results {
            #expect(error as? DomainError == DomainError(.conflict, field: "redemption_code", "already redeemed"))
        }
        #expect(try world.entries(of: world.user).filter { $0.event == "redemption" }.count == 1)
    }

    @Test("two check-ins racing with one transaction id make one check-in", arguments: StoreBackend.allCases)
    func twoCheckins(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let place = try world.location()
        let nodes = [world.loyalty, try node(world).loyalty]
        let business = world.business
        let user = world.user
        world.clock.set(at(1))
        let results = race(8) { index in
            try nodes[index % 2].recordCheckin(
                NewCheckin(userID: user.id, locationID: place.id, points: 7, source: "qr", transactionID: "R-1"),
                business: business)
        }
        let answers: [CheckinResult] = try results.map { try $0.get() }
        #expect(answers.filter(\.created).count == 1)
        #expect(Set(answers.map(\.checkin.id)).count == 1)
        #expect(try world.reload(world.user).points == 7)
    }

    @Test(
        "users and installs of nobody racing for one push token leave it on one user's device, none refused",
        .bug(id: "issue-40-6", "one token, one device, one user"), arguments: StoreBackend.allCases)
    func oneTokenRacedFor(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let users = try (0..<6).map { try world.addUser("racer\($0)@example.com") }
        let second = try node(world)
        let clock = world.clock.wallClock
        let accounts = [world.accounts, second.accounts]
        let installs = [
            DeviceService(store: world.store, clock: clock), DeviceService(store: second.store, clock: clock),
        ]
        let business = world.business
        world.clock.set(at(1))
        let results = race(8) { index in
            if index < users.count {
                _ = try accounts[index % 2].registerDevice(
                    businessID: business.id, userID: users[index].id,
                    DeviceRegistration(deviceKey: "phone-\(index)", platform: .apns, token: "raced", userAgent: nil))
            } else {
                _ = try installs[index % 2].register(
                    installID: "install-\(index)", details: DeviceWorld.details(token: .some("raced")),
                    business: business, workspace: .live,
                    credential: IssuedCredential(keyID: "key-\(index)", sealedSecret: [1]))
            }
        }
        for result in results { #expect(throws: Never.self) { try result.get() } }
        let holders = try world.store.read {
            try $0.devices.find(businessID: business.id, platform: .apns, tokens: ["raced"])
        }
        #expect(holders.count == 1 && holders.first?.userID != nil, "\(holders.map(\.deviceKey))")
    }
}
