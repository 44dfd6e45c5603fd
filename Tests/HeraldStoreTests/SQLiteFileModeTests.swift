import Foundation
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// The database holds emails, password hashes and tokens: its files are the owner's only, whatever the directory.
@Suite("SQLite file modes")
struct SQLiteFileModeTests {
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    @Test(.bug(id: "issue-16-6", "database files created 0644 in a 0755 directory"))
    func theDatabaseAndItsWALAre0600InAnOpenDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "herald-modes")
        chmod(directory.path, 0o755)
        let path = directory.path + "/herald.db"
        let database = try SQLiteDatabase(path: path)
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        try database.write { try $0.execute("INSERT INTO t VALUES (1)") }
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Self.mode(file) == 0o600, "\(file): \(String(Self.mode(file) ?? 0, radix: 8))")
        }
    }

    @Test func anExistingReadableDatabaseIsMade0600() throws {
        let directory = try TemporaryDirectory(prefix: "herald-modes")
        let path = directory.path + "/herald.db"
        _ = try SQLiteDatabase(path: path)
        chmod(path, 0o644)
        let database = try SQLiteDatabase(path: path)
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + "-wal") == 0o600)
    }
}
