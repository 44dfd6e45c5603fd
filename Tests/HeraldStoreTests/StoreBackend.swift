import Foundation
import HeraldModel
import HeraldPostgres
import HeraldSQLite
import HeraldStore
import HeraldTesting

/// The backends every conformance test runs against. PostgreSQL is the server `HERALD_TEST_POSTGRES_URL` names
/// (`scripts/test` starts one), each test in a schema of its own; `HERALD_TEST_POSTGRES=off` leaves it out.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    static var allCases: [StoreBackend] { TestPostgres.isOff ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }

    var testDescription: String { rawValue }

    func make() throws -> any Store {
        switch self {
        case .memory:
            return MemoryStore()
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "herald-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("test.db").path)
            try Migrator.migrate(database, Schema.migrations, at: 0)
            return SQLStore(database: database)
        case .postgres:
            let database = try TestPostgres.database()
            try Migrator.migrate(database, Schema.migrations, at: 0)
            return SQLStore(database: database)
        }
    }
}

import Testing

/// Fixed times for tests.
func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_700_000_000_000 + seconds * 1000) }

/// A business with one user, for tests that need both.
struct Fixture {
    let store: any Store
    let business: Business
    let user: User

    init(_ backend: StoreBackend) throws {
        store = try backend.make()
        business = try store.createBusiness(
            name: "Burger Co", clientID: "client-1", sealedSecret: [1, 2, 3], posKeyHash: "pos-1", at: at(0))
        user = try store.createUser(
            NewUser(
                businessID: business.id, email: "ann@example.com", passwordHash: "hash", firstName: "Ann",
                lastName: "Lee"),
            at: at(0))
    }

    func addUser(_ email: String) throws -> User {
        try store.createUser(
            NewUser(businessID: business.id, email: email, passwordHash: "hash", firstName: "X", lastName: "Y"),
            at: at(0))
    }

    @discardableResult
    func register(
        _ user: User, key: String, token: String??, platform: PushPlatform = .apns, at time: Timestamp = at(1)
    ) throws -> Device {
        try store.registerDevice(
            businessID: business.id, userID: user.id,
            DeviceRegistration(deviceKey: key, platform: platform, token: token, userAgent: "Tests/1.0"), at: time)
    }

    func draft(_ user: User, _ body: String = "Hello", style: PushStyle = .alert, visible: Bool = true)
        -> NotificationDraft
    {
        NotificationDraft(
            businessID: business.id, userID: user.id, kind: .news, event: "news", title: "Title", body: body,
            extras: ["p": 12], pushStyle: style, visibleInInbox: visible)
    }
}
