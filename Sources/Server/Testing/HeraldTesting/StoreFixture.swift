import Foundation
import HeraldDomain
import HeraldModel
import HeraldPostgres
import HeraldSQLite
import HeraldStore

/// The databases the store and domain conformance suites run on: SQLite, and the PostgreSQL server
/// `HERALD_TEST_POSTGRES_URL` names (`scripts/test` starts one), each test in a schema of its own;
/// `HERALD_TEST_POSTGRES=off` leaves it out.
public enum StoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A fresh SQLite file.
    case sqlite
    /// A fresh schema on the test PostgreSQL server.
    case postgres

    public static var allCases: [StoreBackend] { TestPostgres.isOff ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// A fresh, migrated store on this backend.
    public func make() throws -> Store { try makeDatabase().store }

    /// A fresh, migrated database on this backend, and a store over it; `path` (a file, or a PostgreSQL schema)
    /// is where another connection (a second node) opens it.
    public func makeDatabase() throws -> (store: Store, path: String) {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "herald-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("test.db").path
            let database = try SQLiteDatabase(path: path)
            try Migrator.migrate(database, Schema.migrations, at: 0)
            return (try Store(database: database), path)
        case .postgres:
            let schema = try TestPostgres.makeSchema()
            let database = try TestPostgres.database(schema: schema)
            try Migrator.migrate(database, Schema.migrations, at: 0)
            return (try Store(database: database), schema)
        }
    }

    /// Another store (another node, another connection) on the database at `path`.
    public func reopen(_ path: String) throws -> Store {
        switch self {
        case .sqlite: return try Store(database: try SQLiteDatabase(path: path))
        case .postgres: return try Store(database: try TestPostgres.database(schema: path))
        }
    }
}

/// A store with a business and one user, the domain services over it, and a clock the test sets: what the store
/// and domain suites start from.
///
/// ```swift
/// let world = try StoreFixture(.sqlite)
/// world.clock.set(at(10))
/// let result = try world.loyalty.recordCheckin(…, business: world.business)
/// ```
public final class StoreFixture: Sendable {
    /// The store.
    public let store: Store
    /// Where the database is (to open a second connection: `backend.reopen(path)`).
    public let path: String
    /// The backend.
    public let backend: StoreBackend
    /// The time the services see.
    public let clock: ManualClock
    /// Templates and the publishing path.
    public let notifications = NotificationService()
    /// The loyalty rules.
    public let loyalty: LoyaltyService
    /// Accounts and devices.
    public let accounts: AccountService
    /// Inbox rules.
    public let inbox: InboxService
    /// "Burger Co".
    public let business: Business
    /// Ann, of Burger Co.
    public let user: User

    /// A fresh world on `backend`, its clock at `start`.
    public init(_ backend: StoreBackend, start: Timestamp = Timestamp(milliseconds: 1_700_000_000_000)) throws {
        self.backend = backend
        (store, path) = try backend.makeDatabase()
        clock = ManualClock(start: start)
        loyalty = LoyaltyService(store: store, notifications: notifications, clock: clock.wallClock)
        accounts = AccountService(store: store, notifications: notifications, loyalty: loyalty, clock: clock.wallClock)
        inbox = InboxService(store: store, clock: clock.wallClock)
        business = try store.transaction {
            try $0.businesses.insert(
                name: "Burger Co", clientID: "client-1", sealedSecret: [1, 2, 3], posKeyHash: "pos-1", at: start)
        }
        let business = business
        user = try store.transaction {
            try $0.users.insert(
                NewUser(
                    businessID: business.id, email: "ann@example.com", passwordHash: "hash", firstName: "Ann",
                    lastName: "Lee"),
                at: start)
        }
    }

    /// Another user of the business.
    public func addUser(_ email: String, phone: String? = nil) throws -> User {
        let user = NewUser(
            businessID: business.id, email: email, passwordHash: "hash", firstName: "X", lastName: "Y", phone: phone)
        let now = clock.now
        return try store.transaction { try $0.users.insert(user, at: now) }
    }

    /// Registers `user`'s device `key` with `token` (`.some(nil)` clears it, nil leaves it) at `time`.
    @discardableResult
    public func register(
        _ user: User, key: String, token: String??, platform: PushPlatform = .apns, at time: Timestamp? = nil
    ) throws -> Device {
        if let time { clock.set(time) }
        return try accounts.registerDevice(
            businessID: business.id, userID: user.id,
            DeviceRegistration(deviceKey: key, platform: platform, token: token, userAgent: "Tests/1.0"))
    }

    /// A news draft for `user`.
    public func draft(_ user: User, _ body: String = "Hello", style: PushStyle = .alert, visible: Bool = true)
        -> NotificationDraft
    {
        NotificationDraft(
            businessID: business.id, userID: user.id, kind: .news, event: "news", title: "Title", body: body,
            extras: ["p": 12], pushStyle: style, visibleInInbox: visible)
    }

    /// Publishes `drafts` (entries and their delivery jobs) at `time`.
    @discardableResult
    public func publish(_ drafts: [NotificationDraft], at time: Timestamp? = nil) throws -> [InboxEntry] {
        if let time { clock.set(time) }
        let now = clock.now
        return try store.transaction { tx in try drafts.map { try notifications.publish($0, in: tx, at: now) } }
    }

    /// The user `id` as stored now.
    public func reload(_ user: User) throws -> User {
        try store.read { try $0.users.find(businessID: user.businessID, id: user.id) }!
    }

    /// `user`'s visible entries, newest first.
    public func entries(of user: User, limit: Int = 1000, offset: Int = 0) throws -> [InboxEntry] {
        try store.read { try $0.inbox.page(userID: user.id, limit: limit, offset: offset) }
    }

    /// The delivery jobs of an entry.
    public func deliveries(of entry: InboxEntry) throws -> [Delivery] {
        try store.read { try $0.deliveries.all(notificationID: entry.id) }
    }

    /// `user`'s badge.
    public func badge(_ user: User) throws -> Int { try store.read { try $0.inbox.unreadCount(userID: user.id) } }
}
