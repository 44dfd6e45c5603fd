import Foundation
import HeraldStore
import Synchronization

/// A SQLite database file in WAL mode: one writer connection (writes are serialised, as SQLite requires)
/// and a pool of reader connections that read while the writer writes.
///
/// ```swift
/// let database = try SQLiteDatabase(path: "herald-data/herald.db")
/// try Migrator.migrate(database, Schema.migrations, at: now)
/// let store = SQLStore(database: database)
/// ```
public final class SQLiteDatabase: SQLDatabase {
    public let dialect = SQLDialect.sqlite
    private let path: String
    private let writer: Mutex<SQLiteConnection>
    private let readers = Mutex<[SQLiteConnection]>([])
    private let maxIdleReaders: Int
    private let commits = Atomic<UInt64>(0)

    /// Opens the database at `path`, keeping up to `maxIdleReaders` reader connections.
    public init(path: String, maxIdleReaders: Int = 16) throws {
        self.path = path
        self.maxIdleReaders = maxIdleReaders
        writer = Mutex(try SQLiteConnection(path: path))
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let connection = try readers.withLock { $0.popLast() } ?? SQLiteConnection(path: path)
        defer {
            readers.withLock { idle in
                if idle.count < maxIdleReaders { idle.append(connection) }
            }
        }
        return try body(connection)
    }

    public var committedWriteCount: UInt64 { commits.load(ordering: .acquiring) }

    @discardableResult
    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        // Prepared once and kept, like every statement: `sqlite3_exec` would parse them on every transaction.
        let (result, committed) = try writer.withLock { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(connection)
                try connection.execute("COMMIT")
                commits.add(1, ordering: .releasing)
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
