import HeraldDomain
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("User import")
struct UserImporterTests {
    static let apnsToken = String(repeating: "ab", count: 32)
    static func fcmToken(_ n: Int) -> String { "fcm-token-\(n)-" + String(repeating: "x", count: 20) }

    /// Every row of users and devices, as stored: what "changes nothing" is checked against.
    static func snapshot(_ world: StoreFixture) throws -> [[SQLValue]] {
        try world.store.database.read { connection in
            try connection.rows("SELECT * FROM users ORDER BY id").map(\.values)
                + connection.rows("SELECT * FROM devices ORDER BY id").map(\.values)
        }
    }

    static func user(_ world: StoreFixture, external: String) throws -> User? {
        try world.store.read { try $0.users.find(businessID: world.business.id, externalIDs: [external]) }.first
    }

    static func devices(_ world: StoreFixture, of user: User) throws -> [Device] {
        try world.store.read { try $0.devices.all(userID: user.id) }
    }

    @Test(arguments: StoreBackend.allCases)
    func usersAreCreatedThenUpdatedAndAReimportChangesNothing(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let importer = UserImporter(store: world.store, clock: world.clock.wallClock)
        let batch = (1...50).map { n in
            ImportedUser(
                line: n, externalID: "crm-\(n)", email: n % 2 == 0 ? "user\(n)@example.com" : nil, firstName: "U\(n)",
                lastName: nil, attributes: [("tier", n % 3 == 0 ? "gold" : "silver"), ("age", .int(Int64(20 + n)))],
                devices: [
                    ImportedDevice(key: "install-\(n)", keyGiven: true, platform: .fcm, token: Self.fcmToken(n))
                ])
        }
        world.clock.set(at(10))
        let first = try importer.importBatch(batch, businessID: world.business.id)
        #expect(first == UserImportResult(created: 50, updated: 0, rejected: []))
        let u7 = try #require(try Self.user(world, external: "crm-7"))
        #expect(u7.firstName == "U7" && u7.lastName == "" && u7.email == nil && u7.createdAt == at(10))
        #expect(u7.attributes == ["tier": "silver", "age": 27])
        #expect(u7.passwordHash == "")
        let devices = try Self.devices(world, of: u7)
        #expect(devices.map(\.deviceKey) == ["install-7"] && devices.first?.token == Self.fcmToken(7))
        #expect(devices.first?.platform == .fcm && devices.first?.install == nil)

        let before = try Self.snapshot(world)
        world.clock.set(at(20))
        let second = try importer.importBatch(batch, businessID: world.business.id)
        #expect(second == UserImportResult(created: 0, updated: 50, rejected: []))
        #expect(try Self.snapshot(world) == before, "a re-import wrote something")
    }

    @Test(arguments: StoreBackend.allCases)
    func usersAreMatchedByExternalIDThenByEmail(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let importer = UserImporter(store: world.store, clock: world.clock.wallClock)
        let business = world.business.id
        // Ann signed up in the app: an import naming her email finds her and gives her the external id.
        world.clock.set(at(5))
        var result = try importer.importBatch(
            [ImportedUser(line: 1, externalID: "crm-ann", email: "ann@example.com", attributes: [("tier", "gold")])],
            businessID: business)
        #expect(result.updated == 1 && result.created == 0)
        let ann = try world.reload(world.user)
        #expect(ann.externalID == "crm-ann" && ann.attributes == ["tier": "gold"] && ann.passwordHash == "hash")
        #expect(ann.firstName == "Ann" && ann.updatedAt == at(5))

        // By external id, the email may change; another user's email may not be taken; an email whose user has
        // another external id is not this user.
        _ = try world.addUser("bob@example.com")
        result = try importer.importBatch(
            [
                ImportedUser(line: 1, externalID: "crm-ann", email: "ann.lee@example.com", lastName: "Lee-Smith"),
                ImportedUser(line: 2, externalID: "crm-ann", email: "bob@example.com"),
                ImportedUser(line: 3, externalID: "crm-other", email: "ann.lee@example.com"),
                ImportedUser(line: 4, externalID: nil, email: "bob@example.com", firstName: "Bob"),
                ImportedUser(line: 5, externalID: nil, email: "new@example.com"),
                ImportedUser(line: 6, externalID: "crm-new", email: "new@example.com"),
            ], businessID: business)
        #expect(result.created == 1 && result.updated == 3)
        #expect(
            result.rejected == [
                .init(line: 2, errors: [.init("email", ["has already been taken"])]),
                .init(line: 3, errors: [.init("email", ["belongs to a user with another external_id"])]),
            ])
        let moved = try world.reload(world.user)
        #expect(moved.email == "ann.lee@example.com" && moved.lastName == "Lee-Smith" && moved.firstName == "Ann")
        let new = try #require(try Self.user(world, external: "crm-new"))
        #expect(new.email == "new@example.com")
        #expect(
            try world.store.read { try $0.users.find(businessID: business, email: "bob@example.com") }?.firstName
                == "Bob")
    }

    @Test(arguments: StoreBackend.allCases)
    func attributesAreMergedAndNullRemovesOne(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let importer = UserImporter(store: world.store, clock: world.clock.wallClock)
        let business = world.business.id
        _ = try importer.importBatch(
            [ImportedUser(line: 1, externalID: "x", email: nil, attributes: [("a", 1), ("b", "two"), ("c", true)])],
            businessID: business)
        _ = try importer.importBatch(
            [ImportedUser(line: 1, externalID: "x", email: nil, attributes: [("b", nil), ("d", 4.5), ("a", 2)])],
            businessID: business)
        #expect(try Self.user(world, external: "x")?.attributes == ["a": 2, "c": true, "d": 4.5])
        // At most 100 in all.
        let many = (0..<98).map { (key: "k\($0)", value: JSON.int(Int64($0))) }
        let result = try importer.importBatch(
            [ImportedUser(line: 7, externalID: "x", email: nil, attributes: many)], businessID: business)
        #expect(
            result.rejected == [.init(line: 7, errors: [.init("attributes", ["a user has at most 100 attributes"])])])
        #expect(try Self.user(world, external: "x")?.attributes == ["a": 2, "c": true, "d": 4.5])
    }

    @Test(arguments: StoreBackend.allCases)
    func devicesAreTheSameDevicesWhicheverAPINamedThem(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let importer = UserImporter(store: world.store, clock: world.clock.wallClock)
        let business = world.business.id
        // Ann's phone, registered through the Punchh API with its device id.
        let phone = try world.register(world.user, key: "punchh-device-1", token: Self.apnsToken)
        let tablet = try world.register(world.user, key: "punchh-device-2", token: Self.fcmToken(2), platform: .fcm)
        world.clock.set(at(30))
        let result = try importer.importBatch(
            [
                ImportedUser(
                    line: 1, externalID: "crm-1", email: nil,
                    devices: [
                        // The phone, by its id: it moves to this user, keeping its token.
                        ImportedDevice(key: "punchh-device-1", keyGiven: true, platform: .apns, token: Self.apnsToken),
                        // The tablet's token without an id: the tablet is found by it.
                        ImportedDevice(
                            key: "token:derived-2", keyGiven: false, platform: .fcm, token: Self.fcmToken(2)),
                        // A new device without an id: made with the derived key.
                        ImportedDevice(
                            key: "token:derived-3", keyGiven: false, platform: .fcm, token: Self.fcmToken(3)),
                    ])
            ], businessID: business)
        #expect(result.created == 1)
        let imported = try #require(try Self.user(world, external: "crm-1"))
        let devices = try Self.devices(world, of: imported)
        #expect(devices.map(\.id).contains(phone.id) && devices.map(\.id).contains(tablet.id))
        #expect(devices.map(\.deviceKey).sorted() == ["punchh-device-1", "punchh-device-2", "token:derived-3"])
        #expect(try Self.devices(world, of: world.user).isEmpty)
        #expect(devices.first { $0.id == phone.id }?.token == Self.apnsToken)

        // A token moved to another device leaves the one that had it.
        let before = try Self.snapshot(world)
        let moved = try importer.importBatch(
            [
                ImportedUser(
                    line: 1, externalID: "crm-2", email: nil,
                    devices: [
                        ImportedDevice(key: "install-new", keyGiven: true, platform: .apns, token: Self.apnsToken)
                    ])
            ], businessID: business)
        #expect(moved.created == 1)
        #expect(try Self.snapshot(world) != before)
        let phoneNow = try world.store.read { try $0.devices.find(id: phone.id) }
        #expect(phoneNow?.token == nil && phoneNow?.userID == imported.id)
        let second = try #require(try Self.user(world, external: "crm-2"))
        #expect(try Self.devices(world, of: second).map(\.token) == [Self.apnsToken])
    }

    @Test(arguments: StoreBackend.allCases)
    func linesOfOneBatchSeeEachOther(_ backend: StoreBackend) throws {
        let world = try StoreFixture(backend)
        let importer = UserImporter(store: world.store, clock: world.clock.wallClock)
        let token = Self.fcmToken(9)
        let result = try importer.importBatch(
            [
                ImportedUser(line: 1, externalID: "a", email: "a@example.com", attributes: [("n", 1)]),
                ImportedUser(line: 2, externalID: "a", email: nil, attributes: [("m", 2)]),
                ImportedUser(line: 3, externalID: "b", email: "a@example.com"),
                ImportedUser(
                    line: 4, externalID: "b", email: nil,
                    devices: [ImportedDevice(key: "dev", keyGiven: true, platform: .fcm, token: token)]),
                ImportedUser(
                    line: 5, externalID: "c", email: nil,
                    devices: [ImportedDevice(key: "dev", keyGiven: true, platform: .fcm, token: token)]),
            ], businessID: world.business.id)
        #expect(result.created == 3 && result.updated == 1)
        #expect(
            result.rejected == [
                .init(line: 3, errors: [.init("email", ["belongs to a user with another external_id"])])
            ])
        #expect(try Self.user(world, external: "a")?.attributes == ["n": 1, "m": 2])
        let c = try #require(try Self.user(world, external: "c"))
        #expect(try Self.devices(world, of: c).map(\.deviceKey) == ["dev"])
        #expect(try Self.devices(world, of: Self.user(world, external: "b")!).isEmpty)
    }
}
