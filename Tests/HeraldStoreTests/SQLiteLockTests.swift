import Foundation
import HeraldSQLite
import HeraldTesting
import Testing

/// SQLite keeps a read lock on a WAL database while a connection has it open; the last process to close it (the one
/// that can take an exclusive lock) checkpoints and deletes the WAL. A server that lost its lock had its WAL deleted
/// under it by the next `herald admin` or `sqlite3` to close the database, and its later writes went nowhere.
@Suite("SQLite locks")
struct SQLiteLockTests {
    /// Whether this process holds a lock on `path`, asked with an open file description lock (`F_OFD_GETLK`): an OFD
    /// lock conflicts with a process's own POSIX locks, so the kernel names SQLite's lock if there is one. Unlike
    /// /proc/locks this needs no pid or inode to match (both differ inside containers and on overlay filesystems).
    /// Closing the probe's descriptor drops every POSIX lock the process holds on the file, so it is the last step.
    static func holdsLock(on path: String) throws -> Bool {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 0  // the whole file
        let getOFDLock: Int32 = 36  // F_OFD_GETLK, Linux 3.15+, not exported without _GNU_SOURCE
        guard fcntl(descriptor, getOFDLock, &probe) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EINVAL) }
        return probe.l_type != Int16(F_UNLCK)
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
        #expect(try Self.holdsLock(on: path), "no lock on herald.db: another process may delete its WAL")
    }
}
