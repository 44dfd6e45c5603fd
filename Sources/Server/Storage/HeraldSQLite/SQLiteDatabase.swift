import Foundation
import HeraldStore
import Synchronization

/// A SQLite database file in WAL mode: one writer connection (writes are serialised, as SQLite requires)
/// and a pool of reader connections that read while the writer writes.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "herald-data/herald.db")
/// try Migrator.migrate(database, Schema.migrations, at: now)
/// let store = try Store(database: database)
/// ```
package final class SQLiteDatabase: SQLDatabase {
    package let dialect = SQLDialect.sqlite
    private let path: String
    private let writer: Mutex<SQLiteConnection>
    private let readers = Mutex<[SQLiteConnection]>([])
    private let maxIdleReaders: Int

    /// Opens the database at `path`, keeping up to `maxIdleReaders` reader connections.
    package init(path: String, maxIdleReaders: Int = 16) throws {
        self.path = path
        self.maxIdleReaders = maxIdleReaders
        Self.restrictFiles(path)
        writer = Mutex(try SQLiteConnection(path: path))
        Self.restrictFiles(path)
    }

    /// Makes the database and its WAL and shared-memory files readable by their owner only (0600), whatever the
    /// directory's mode or the umask: they hold emails, password hashes and tokens. A new database is created
    /// 0600 before SQLite opens it (SQLite gives the WAL and shared-memory files its mode); an existing one, and
    /// files left by an older version, are changed.
    ///
    /// An existing file is never opened here, only stat'ed and chmod'ed: SQLite's locks are POSIX record locks, which
    /// belong to the process, and closing *any* descriptor of the file drops them all. A server that did so after its
    /// connection had read the database held no lock on it, so the next process to close the database (`herald
    /// admin`, a `sqlite3` shell) took itself for the last one, checkpointed and deleted the WAL the server was
    /// still writing into. A file that does not exist yet has no lock to lose.
    static func restrictFiles(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        var existing = stat()
        if stat(path, &existing) != 0, errno == ENOENT {
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { close(descriptor) }
        }
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & 0o077 != 0 { _ = chmod(file, 0o600) }
        }
    }

    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let connection = try readers.withLock { $0.popLast() } ?? SQLiteConnection(path: path)
        defer {
            readers.withLock { idle in
                if idle.count < maxIdleReaders { idle.append(connection) }
            }
        }
        return try body(connection)
    }

    @discardableResult
    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction(body)
    }

    /// With foreign keys off while the transaction runs (SQLite ignores the switch inside one), then checked: a
    /// rebuilt table is dropped and its copy renamed into its place, as SQLite's documentation of ALTER TABLE
    /// describes, and any reference left dangling fails the migration before it commits.
    package func migrate<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction(foreignKeysChecked: .atCommit) { connection in
            let result = try body(connection)
            if let dangling = try connection.row("PRAGMA foreign_key_check") {
                throw StoreError(.schema, "the migration leaves a dangling reference in \(dangling.text(0))")
            }
            return result
        }
    }

    private enum ForeignKeys { case eachStatement, atCommit }

    /// `body` in one write transaction on the writer; the actions it queued with `afterCommit` run once the writer
    /// is free again (dropped on a rollback).
    private func transaction<T>(
        foreignKeysChecked: ForeignKeys = .eachStatement, _ body: (any SQLConnection) throws -> T
    ) throws -> T {
        // Prepared once and kept, like every statement: `sqlite3_exec` would parse them on every transaction.
        let (result, committed) = try writer.withLock { connection in
            if foreignKeysChecked == .atCommit { try connection.executeScript("PRAGMA foreign_keys = OFF") }
            defer {
                if foreignKeysChecked == .atCommit { _ = try? connection.executeScript("PRAGMA foreign_keys = ON") }
            }
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(connection)
                try connection.execute("COMMIT")
                return (result, connection.takeCommitActions())
            } catch {
                _ = try? connection.execute("ROLLBACK")
                _ = connection.takeCommitActions()
                throw error
            }
        }
        for action in committed { action() }
        return result
    }
}
