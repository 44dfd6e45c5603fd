import Foundation
import HeraldModel
import HeraldPostgres
import HeraldDeliveryPorts
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// Migrations applied to a database that already holds data, as an upgrade meets them.
@Suite("Migrations")
struct MigrationTests {
    @Test("devices and campaigns (7) keeps every row and every reference of a database made by 1–6")
    func devicesAndCampaignsKeepsTheData() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("herald.db"))
        let before = Schema.migrations.filter { $0.version < 7 }
        try Migrator.migrate(database, before, at: 0)
        // Rows as version 6 wrote them (the record code of today writes today's columns).
        try database.write { db in
            for statement in [
                "INSERT INTO businesses (id, name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES (1, 'Old Co', 'c', x'01', 'p', '{}', 0)",
                "INSERT INTO users (id, business_id, email, password_hash, first_name, last_name, points, banked_cents, created_at, updated_at) VALUES (1, 1, 'ann@example.com', 'h', 'Ann', 'L', 40, 250, 0, 0)",
                "INSERT INTO devices (id, business_id, user_id, device_key, platform, token, created_at, updated_at) VALUES (1, 1, 1, 'phone', 'apns', 'aaaa', 0, 0)",
                "INSERT INTO sessions (id, token_hash, business_id, user_id, device_id, created_at, expires_at) VALUES (1, 't', 1, 1, 1, 0, \(at(100).milliseconds))",
                "INSERT INTO notifications (id, business_id, user_id, kind, event, title, body, extras, push_style, visible, created_at) VALUES (1, 1, 1, 'news', 'news', 'T', 'B', '{}', 'alert', 1, \(at(1).milliseconds))",
                "INSERT INTO deliveries (id, notification_id, business_id, device_id, platform, status, attempts, next_attempt_at, apns_id, created_at, updated_at) VALUES (1, 1, 1, 1, 'apns', 'queued', 0, \(at(1).milliseconds), 'x', 0, 0)",
            ] {
                try db.executeScript(statement)
            }
        }
        let store = try Store(database: database)
        let user = (businessID: Int64(1), id: Int64(1))
        let device = (id: Int64(1), ())
        let entry = (id: Int64(1), ())
        #expect(
            try Migrator.migrate(database, Schema.migrations, at: 0)
                == Schema.migrations.map(\.version).filter { $0 >= 7 })
        try database.read { db throws in
            #expect(try db.rows("PRAGMA foreign_key_check").isEmpty, "every reference still resolves")
        }
        try store.read { tx throws in
            let migrated = try #require(try tx.users.find(businessID: user.businessID, id: user.id))
            #expect(migrated.email == "ann@example.com" && migrated.points == 40)
            #expect(migrated.bankedCurrency == Money(cents: 250))
            #expect(migrated.attributes == .object([]) && migrated.externalID == nil)
            #expect(try tx.devices.find(id: device.id)?.token == "aaaa")
            #expect(try tx.devices.find(id: device.id)?.install == nil, "a Punchh device, no install yet")
            #expect(try tx.sessions.find(tokenHash: "t")?.deviceID == device.id)
            #expect(try tx.inbox.find(userID: user.id, id: entry.id)?.body == "B")
            #expect(try tx.deliveries.all(notificationID: entry.id).map(\.deviceID) == [device.id])
        }
        // The rebuilt tables keep their constraints.
        let taken = #expect(throws: StoreError.self) {
            try store.transaction {
                try $0.users.insert(
                    NewUser(
                        businessID: user.businessID, email: "ann@example.com", passwordHash: "h", firstName: "A",
                        lastName: "B"),
                    at: at(2))
            }
        }
        #expect(taken?.field == "email")
        // …and the queue still claims the job made before the upgrade.
        let claimed = try store.deliveryQueue.claim(owner: "n", limit: 10, leaseUntil: at(100), at: at(2))
        #expect(claimed.map(\.notification.id) == [entry.id] && claimed.first?.deviceBelongsToRecipient == true)
    }

    @Test("a migration numbered below the newest applied, landed later from another branch, is applied once")
    func aMigrationLandedOutOfOrderIsApplied() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.file("herald.db"))
        let table = { (version: Int, name: String) in
            Migration(version: version, name: name) { _ in ["CREATE TABLE \(name) (id INTEGER PRIMARY KEY)"] }
        }
        #expect(try Migrator.migrate(database, [table(1, "first"), table(3, "third")], at: 0) == [1, 3])
        #expect(
            try Migrator.migrate(database, [table(1, "first"), table(2, "second"), table(3, "third")], at: 0) == [2])
        #expect(
            try Migrator.migrate(database, [table(1, "first"), table(2, "second"), table(3, "third")], at: 0) == [])
        try database.read { db throws in
            #expect(try db.rows("SELECT id FROM second").isEmpty, "the late migration's table exists")
        }
    }

    /// A new database on `backend` (SQLite's file in `directory`), with the migrations numbered below `version`.
    static func database(_ backend: StoreBackend, in directory: TemporaryDirectory, migratedBelow version: Int) throws
        -> any SQLDatabase
    {
        let database: any SQLDatabase =
            backend == .sqlite
            ? try SQLiteDatabase(path: directory.file("herald.db"))
            : try TestPostgres.database(schema: try TestPostgres.makeSchema())
        try Migrator.migrate(database, Schema.migrations.filter { $0.version < version }, at: 0)
        return database
    }

    @Test(
        "one token holder (33) leaves each shared token on one device: a user's first, then the latest",
        arguments: StoreBackend.allCases)
    func oneTokenHolderKeepsOneHolder(_ backend: StoreBackend) throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(backend, in: directory, migratedBelow: 33)
        try database.write { db in
            for (business, client) in [(1, "c1"), (2, "c2")] {
                try db.execute(
                    "INSERT INTO businesses (id, name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES (\(business), 'B', \(client), \([UInt8]([1])), \(client), '{}', 0)"
                )
            }
            for (user, email) in [(1, "ann@example.com"), (2, "bob@example.com")] {
                try db.execute(
                    "INSERT INTO users (id, business_id, email, password_hash, first_name, last_name, created_at, updated_at) VALUES (\(user), 1, \(email), 'h', 'A', 'L', 0, 0)"
                )
            }
            // Ann's then Bob's phone, then an install of nobody, share "t"; two installs of nobody share "u"; another
            // business's device holds "t" too.
            let rows: [(id: Int64, business: Int64, user: Int64?, token: String, time: Int64)] = [
                (1, 1, 1, "t", 1), (2, 1, 2, "t", 2), (3, 1, nil, "t", 3), (4, 1, nil, "u", 5), (5, 1, nil, "u", 4),
                (6, 2, nil, "t", 1),
            ]
            for row in rows {
                try db.execute(
                    "INSERT INTO devices (id, business_id, user_id, device_key, platform, token, token_updated_at, created_at, updated_at) VALUES (\(row.id), \(row.business), \(row.user), \("d\(row.id)"), 'apns', \(row.token), \(row.time), 0, 0)"
                )
            }
        }
        #expect(
            try Migrator.migrate(database, Schema.migrations, at: 0)
                == Schema.migrations.map(\.version).filter { $0 >= 33 })
        let store = try Store(database: database)
        let tokens = try store.read { tx in try (1...6).map { try tx.devices.find(id: Int64($0))?.token } }
        #expect(tokens == [nil, "t", nil, "u", nil, "t"])
        let second = #expect(throws: StoreError.self) {
            try database.write { try $0.execute("UPDATE devices SET token = 't' WHERE id = 1") }
        }
        #expect(second?.code == .conflict && second?.field == "token")
    }

    @Test(
        "credential windows (37) lands on a database made by 1–34, and both dialects keep and read a window",
        arguments: StoreBackend.allCases)
    func credentialWindowsLands(_ backend: StoreBackend) throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(backend, in: directory, migratedBelow: 35)
        #expect(
            try Migrator.migrate(database, Schema.migrations, at: 0)
                == Schema.migrations.map(\.version).filter { $0 >= 35 })
        let store = try Store(database: database)
        let window = CredentialWindow(businessID: 1, platform: .fcm, limit: 470, found: true, at: at(5))
        try store.saveCredentialWindows([window])
        #expect(try store.credentialWindows(since: at(0)) == [window])
    }
}
