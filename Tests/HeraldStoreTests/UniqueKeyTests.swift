import Foundation
import HeraldPostgres
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// Every unique key of the schema, violated on each SQL backend: a `.conflict` on the field `UniqueKey` names —
/// which checks the PostgreSQL names in the table against what PostgreSQL calls them, and SQLite's column lists.
@Suite("Store conformance: unique keys")
struct UniqueKeyTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres

        static var allCases: [Backend] { TestPostgres.isOff ? [.sqlite] : [.sqlite, .postgres] }
        var testDescription: String { rawValue }

        func make() throws -> (database: any SQLDatabase, directory: TemporaryDirectory?) {
            switch self {
            case .sqlite:
                let directory = try TemporaryDirectory(prefix: "herald-unique")
                return (try SQLiteDatabase(path: directory.file("test.db")), directory)
            case .postgres:
                return (try TestPostgres.database(), nil)
            }
        }
    }

    /// An insert into the key's table: `n` varies every other unique column, so only the key itself repeats.
    static func insert(_ key: UniqueKey, _ n: Int, business b: Int64, user u: Int64, location l: Int64, offer o: Int64)
        -> SQLQuery
    {
        switch (key.table, key.field) {
        case ("businesses", "client"):
            return
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES ('x', 'dup', \([UInt8]()), \("pos\(n)"), '{}', 0)"
        case ("businesses", _):
            return
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES ('x', \("client\(n)"), \([UInt8]()), 'dup', '{}', 0)"
        case ("credentials", _):
            return
                "INSERT INTO credentials (business_id, platform, settings, sealed_key, updated_at) VALUES (\(b), 'apns', '{}', \([UInt8]([UInt8(n)])), 0)"
        case ("templates", _):
            return
                "INSERT INTO templates (business_id, event, title, subtitle, body, sound, enabled, updated_at) VALUES (\(b), 'news', \("t\(n)"), '', '', '', 1, 0)"
        case ("users", "email"):
            return
                "INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at) VALUES (\(b), 'dup@example.com', 'h', 'A', 'B', \("p\(n)"), 0, 0)"
        case ("users", _):
            return
                "INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at) VALUES (\(b), \("u\(n)@example.com"), 'h', 'A', 'B', 'dup', 0, 0)"
        case ("devices", "device_key"):
            return
                "INSERT INTO devices (business_id, user_id, device_key, platform, token, created_at, updated_at) VALUES (\(b), \(u), 'dup', 'apns', \("tok\(n)"), 0, 0)"
        case ("devices", _):
            return
                "INSERT INTO devices (business_id, user_id, device_key, platform, token, created_at, updated_at) VALUES (\(b), \(u), \("key\(n)"), 'apns', 'dup', 0, 0)"
        case ("sessions", _):
            return
                "INSERT INTO sessions (token_hash, business_id, user_id, created_at, expires_at) VALUES ('dup', \(b), \(u), \(n), 0)"
        case ("rewards", _):
            return
                "INSERT INTO rewards (business_id, user_id, offer_id, source, granted_at, redemption_code) VALUES (\(b), \(u), \(o), 'x', \(n), 'DUP')"
        case ("checkins", _):
            return
                "INSERT INTO checkins (business_id, user_id, location_id, points, source, transaction_id, status, is_first, created_at, updated_at) VALUES (\(b), \(u), \(l), \(n), 'pos', 'dup', 'approved', 0, 0, 0)"
        case ("gift_cards", _):
            return
                "INSERT INTO gift_cards (business_id, uuid, user_id, balance, updated_at) VALUES (\(b), 'dup', \(u), \(Double(n)), 0)"
        default:
            return "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, \("m\(n)"), 0)"
        }
    }

    @Test(arguments: Backend.allCases)
    func everyUniqueKeyReportsItsField(_ backend: Backend) throws {
        let (database, directory) = try backend.make()
        try Migrator.migrate(database, Schema.migrations, at: 0)
        let (b, u, l, o) = try database.write { db in
            let b = try db.scalar(
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES ('B', 'c', \([UInt8]()), 'p', '{}', 0) RETURNING id"
            )
            let u = try db.scalar(
                "INSERT INTO users (business_id, email, password_hash, first_name, last_name, created_at, updated_at) VALUES (\(b), 'ann@example.com', 'h', 'A', 'B', 0, 0) RETURNING id"
            )
            let l = try db.scalar(
                "INSERT INTO locations (business_id, name, created_at) VALUES (\(b), 'L', 0) RETURNING id")
            let o = try db.scalar(
                "INSERT INTO offers (business_id, name, description, discount, created_at) VALUES (\(b), 'O', '', 1, 0) RETURNING id"
            )
            return (b, u, l, o)
        }
        for key in UniqueKey.schema {
            try database.write { db in
                try db.execute(Self.insert(key, 1, business: b, user: u, location: l, offer: o))
            }
            do {
                try database.write { db in
                    try db.execute(Self.insert(key, 2, business: b, user: u, location: l, offer: o))
                }
                Issue.record("\(key.name): a duplicate was accepted")
            } catch let error as StoreError {
                #expect(error.code == .conflict, "\(key.name)")
                #expect(error.field == key.field, "\(key.name): \(error)")
                #expect(!error.message.contains("dup"), "\(key.name): \(error.message)")
            }
        }
        withExtendedLifetime(directory) {}
    }

    @Test func fieldsFromNamesAndColumns() {
        #expect(UniqueKey.field(constraint: "users_phone") == "phone")
        #expect(UniqueKey.field(constraint: "offers_pkey") == "id")
        #expect(UniqueKey.field(constraint: "something_else") == nil)
        #expect(UniqueKey.field(table: "users", columns: ["business_id", "email"]) == "email")
        // A key added later without a row reports its own columns.
        #expect(UniqueKey.field(table: "coupons", columns: ["business_id", "code"]) == "code")
        #expect(UniqueKey.field(table: "coupons", columns: ["business_id"]) == nil)
    }
}
