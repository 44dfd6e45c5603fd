import Foundation
import HeraldModel
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// `herald backup` / `herald restore`: SQLite's online backup API, a consistent copy while Herald writes.
@Suite("SQLite backup and restore")
struct BackupTests {
    /// Every row of every table, by table name.
    private func everything(_ database: SQLiteDatabase) throws -> [String: [[SQLValue]]] {
        try database.read { db in
            let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .map { $0.text(0) }
            var all: [String: [[SQLValue]]] = [:]
            for table in tables {
                all[table] = try db.rows("SELECT * FROM \(raw: table) ORDER BY rowid").map(\.values)
            }
            return all
        }
    }

    @Test("every row comes back, including what is still only in the WAL, while the source stays open")
    func everyRowComesBack() throws {
        let directory = try TemporaryDirectory()
        let source = try SQLiteDatabase(path: directory.file("herald.db"))
        try Migrator.migrate(source, Schema.migrations, at: 0)
        try source.write { db in
            try db.executeScript(
                "INSERT INTO businesses (id, name, client_id, sealed_secret, pos_key_hash, settings, created_at) VALUES (1, 'Burger Co', 'c', x'01', 'p', '{}', 0)"
            )
            for id in 1...300 {
                try db.executeScript(
                    "INSERT INTO users (id, business_id, email, password_hash, first_name, last_name, points, banked_cents, created_at, updated_at) VALUES (\(id), 1, 'user\(id)@example.com', 'h', 'Ann', 'Lee', \(id), 0, 0, 0)"
                )
                try db.executeScript(
                    "INSERT INTO notifications (id, business_id, user_id, kind, event, title, body, extras, push_style, visible, created_at) VALUES (\(id), 1, \(id), 'news', 'news', 'Title é \(id)', 'Body', '{}', 'alert', 1, \(id))"
                )
            }
        }
        let original = try everything(source)
        #expect(original["users"]?.count == 300)
        #expect(original["notifications"]?.count == 300)
        // The main file alone does not hold it yet: the rows are in the WAL (the source is open, not checkpointed).
        let wal = try FileManager.default.attributesOfItem(atPath: directory.file("herald.db-wal"))[.size] as? Int
        #expect((wal ?? 0) > 0)

        let copy = directory.file("backup.db")
        let pages = try SQLiteBackup.backup(from: directory.file("herald.db"), to: copy)
        #expect(pages > 0)
        #expect(try everything(SQLiteDatabase(path: copy)) == original)
        #expect(throws: SQLiteBackup.Failure.self) {
            try SQLiteBackup.backup(from: directory.file("herald.db"), to: copy)
        }

        // Restored over a database that has since changed, and into a new file: the backup's rows exactly.
        try source.write { db in
            try db.executeScript("DELETE FROM notifications WHERE id > 10")
            try db.executeScript("UPDATE users SET points = 0")
        }
        let fresh = directory.file("fresh.db")
        try SQLiteBackup.restore(from: copy, to: fresh)
        #expect(try everything(SQLiteDatabase(path: fresh)) == original)
        let target = directory.file("target.db")
        try SQLiteBackup.backup(from: directory.file("herald.db"), to: target)
        #expect(try everything(SQLiteDatabase(path: target)) != original)
        try SQLiteBackup.restore(from: copy, to: target)
        #expect(try everything(SQLiteDatabase(path: target)) == original)
    }

    @Test func restoreRefusesAFileThatIsNotAHeraldDatabase() throws {
        let directory = try TemporaryDirectory()
        let other = try SQLiteDatabase(path: directory.file("other.db"))
        try other.write { try $0.executeScript("CREATE TABLE t (x INTEGER)") }
        #expect {
            try SQLiteBackup.restore(from: directory.file("other.db"), to: directory.file("herald.db"))
        } throws: { "\($0)".contains("not a Herald database") }
    }
}
