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

    /// Rows the inserts refer to.
    struct Rows {
        var business, user, location, offer, device, campaign, notification: Int64
    }

    /// An insert into the key's table: `n` varies every other unique column, so only the key itself repeats.
    static func insert(_ key: UniqueKey, _ n: Int, _ rows: Rows) -> SQLQuery {
        let (b, u, l, o, d, c, m) = (
            rows.business, rows.user, rows.location, rows.offer, rows.device, rows.campaign, rows.notification
        )
        switch (key.table, key.field) {
        case ("businesses", "api_key"), ("businesses", "sandbox_api_key"):
            return
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at, \(raw: key.columns[0])) VALUES ('x', \("\(key.field)-c\(n)"), \([UInt8]()), \("\(key.field)-p\(n)"), '{}', 0, 'dup')"
        case ("users", "external_id"):
            return
                "INSERT INTO users (business_id, email, password_hash, first_name, last_name, external_id, created_at, updated_at) VALUES (\(b), \("x\(n)@example.com"), 'h', 'A', 'B', 'dup', 0, 0)"
        case ("devices", "key_id"), ("devices", "approval_code"):
            return
                "INSERT INTO devices (business_id, device_key, platform, \(raw: key.field), created_at, updated_at) VALUES (\(b), \("\(key.field)\(n)"), 'apns', 'dup', 0, 0)"
        case ("notifications", "device_id"):
            return
                "INSERT INTO notifications (business_id, kind, event, title, body, extras, push_style, visible, created_at, campaign_id, device_id, trigger_key) VALUES (\(b), 'campaign', 'campaign', \("t\(n)"), 'b', '{}', 'alert', 0, 0, \(c), \(d), 'dup')"
        case ("notifications", _):
            return
                "INSERT INTO notifications (business_id, user_id, kind, event, title, body, extras, push_style, visible, created_at, campaign_id, trigger_key) VALUES (\(b), \(u), 'campaign', 'campaign', \("t\(n)"), 'b', '{}', 'none', 1, 0, \(c), 'dup')"
        case ("device_segments", _):
            return "INSERT INTO device_segments (device_id, segment) VALUES (\(d), 'dup')"
        case ("segments", _):
            return "INSERT INTO segments (business_id, name, filter, created_at) VALUES (\(b), 'dup', '{}', \(n))"
        case ("campaign_stats", _):
            return "INSERT INTO campaign_stats (campaign_id, metric, count) VALUES (\(c), 'dup', \(n))"
        case ("campaign_answers", _):
            return "INSERT INTO campaign_answers (campaign_id, period_start, count) VALUES (\(c), 0, \(n))"
        case ("device_events", _):
            return
                "INSERT INTO device_events (device_id, event_id, business_id, type, occurred_at, received_at) VALUES (\(d), 'dup', \(b), 'custom', \(n), 0)"
        case ("notification_milestones", _):
            return "INSERT INTO notification_milestones (notification_id, type, at) VALUES (\(m), 'dup', \(n))"
        case ("location_beacons", _):
            return "INSERT INTO location_beacons (business_id, minor, location_id) VALUES (\(b), 7, \(l))"
        case ("identity_keys", _):
            return "INSERT INTO identity_keys (business_id, kid, created_at) VALUES (\(b), 'dup', \(n))"
        case ("idempotency_keys", _):
            return "INSERT INTO idempotency_keys (device_id, key, answer, created_at) VALUES (\(d), 'dup', '{}', \(n))"
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
                "INSERT INTO gift_cards (business_id, uuid, user_id, balance_cents, updated_at) VALUES (\(b), 'dup', \(u), \(n), 0)"
        default:
            return "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, \("m\(n)"), 0)"
        }
    }

    @Test(arguments: Backend.allCases)
    func everyUniqueKeyReportsItsField(_ backend: Backend) throws {
        let (database, directory) = try backend.make()
        try Migrator.migrate(database, Schema.migrations, at: 0)
        let rows = try database.write { db in
            let b = try db.scalar(
                "INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES ('B', 'c', \([UInt8]()), 'p', '{}', 0) RETURNING id"
            )
            let u = try db.scalar(
                "INSERT INTO users (business_id, email, password_hash, first_name, last_name, created_at, updated_at) VALUES (\(b), 'ann@example.com', 'h', 'A', 'B', 0, 0) RETURNING id"
            )
            let l = try db.scalar(
                "INSERT INTO locations (business_id, name, created_at) VALUES (\(b), 'L', 0) RETURNING id")
            let o = try db.scalar(
                "INSERT INTO offers (business_id, name, description, discount_cents, created_at) VALUES (\(b), 'O', '', 100, 0) RETURNING id"
            )
            let d = try db.scalar(
                "INSERT INTO devices (business_id, device_key, platform, created_at, updated_at) VALUES (\(b), 'one', 'apns', 0, 0) RETURNING id"
            )
            let c = try db.scalar(
                "INSERT INTO campaigns (business_id, name, message, audience, channels, trigger, limits, sandbox, status, created_at, updated_at) VALUES (\(b), 'C', '{}', '{}', '[]', '{}', '{}', 0, 'draft', 0, 0) RETURNING id"
            )
            let m = try db.scalar(
                "INSERT INTO notifications (business_id, user_id, kind, event, title, body, extras, push_style, visible, created_at) VALUES (\(b), \(u), 'news', 'news', 'T', 'B', '{}', 'alert', 1, 0) RETURNING id"
            )
            return Rows(business: b, user: u, location: l, offer: o, device: d, campaign: c, notification: m)
        }
        for key in UniqueKey.schema {
            try database.write { db in
                try db.execute(Self.insert(key, 1, rows))
            }
            do {
                try database.write { db in
                    try db.execute(Self.insert(key, 2, rows))
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
