import Foundation
import HeraldSQLite
import HeraldTesting
import Testing

/// SQLite keeps a read lock on a WAL database while a connection has it open; the last process to close it (the one
/// that can take an exclusive lock) checkpoints and deletes the WAL. A server that lost its lock had its WAL deleted
/// under it by the next `herald admin` or `sqlite3` to close the database, and its later writes went nowhere.
@Suite("SQLite locks")
struct SQLiteLockTests {
    /// The byte-range locks this process holds on `path`, from /proc/locks ("1: POSIX ADVISORY READ 1234 fd:01:5678 …").
    static func locksHeld(on path: String) throws -> [String] {
        var status = stat()
        guard stat(path, &status) == 0 else { return [] }
        let inode = ":\(status.st_ino) "
        let pid = " \(getpid()) "
        return try String(contentsOfFile: "/proc/locks", encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(pid) && $0.contains(inode) }.map(String.init)
    }

    @Test(.bug(id: "issue-40-1", "after a restart the server held no lock on herald.db"))
    func aDatabaseOpenedAgainKeepsItsLock() throws {
        let directory = try TemporaryDirectory(prefix: "herald-locks")
        let path = directory.path + "/herald.db"
        do {
            let first = try SQLiteDatabase(path: path)
            try first.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        }
        let database = try SQLiteDatabase(path: path)  // a start on an existing database
        try database.write { try $0.execute("INSERT INTO t VALUES (1)") }
        let count = try database.read { try $0.row("SELECT count(*) FROM t")?.int(0) }
        #expect(count == 1)
        #expect(try !Self.locksHeld(on: path).isEmpty, "no lock on herald.db: another process may delete its WAL")
    }
}
