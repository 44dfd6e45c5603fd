import HeraldStore
import Synchronization

/// A PostgreSQL database through libpq: a small pool of connections, each `read` or `write` on one of them.
///
/// ```swift
/// let database = try PostgresDatabase(url: "postgres://herald:secret@db.internal:5432/herald")
/// try Migrator.migrate(database, Schema.migrations, at: now)   // safe when several nodes start at once
/// let store = try Store(database: database)
/// ```
/// The URL is anything libpq reads: `postgres://` or `postgresql://` URLs with `?sslmode=…` and the like, a unix
/// socket as `postgresql:///herald?host=/run/postgresql`, or `host=… dbname=…` pairs. Connections are made when
/// first needed; one found broken (the server restarted, an administrator ended it) is dropped and replaced, and a
/// `read` or `write` that found it so before doing anything runs again, once, on a fresh one.
public final class PostgresDatabase: SQLDatabase {
    package let dialect = SQLDialect.postgres
    private let pool: PostgresConnectionPool
    private let options: Options
    private let commits = Atomic<UInt64>(0)

    /// A database at `url` (no connection is made yet). Throws when libpq cannot read `url`.
    package init(url: String, options: Options = Options()) throws {
        self.options = options
        do {
            let settings = try PostgresConnectionSettings(url: url, parameters: options.parameters)
            pool = PostgresConnectionPool(
                settings: settings, size: options.poolSize, acquireTimeout: options.acquireTimeout)
        } catch {
            throw error.storeError
        }
    }

    /// Connections open now, idle or in use.
    package var openConnections: Int { pool.openCount }

    /// Closes the connections no one is using (they are made again when needed).
    package func closeIdleConnections() { pool.closeIdle() }

    package var committedWriteCount: UInt64 { commits.load(ordering: .acquiring) }

    /// Runs `body` outside any transaction, each statement seeing what was committed when it began (as SQLite's
    /// readers do), or — with `Options.snapshotReads` — inside one read-only REPEATABLE READ transaction, every
    /// statement seeing one snapshot.
    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            guard options.snapshotReads else { return (try body(connection), []) }
            try connection.command("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let result = try body(connection)
            try connection.commit()
            return (result, [])
        }
    }

    /// Runs `body` in one transaction (READ COMMITTED; the dialect's `FOR UPDATE` words lock what it reads to
    /// update): committed if it returns, rolled back if it throws. Its `afterCommit` actions run after the commit,
    /// with the connection back in the pool.
    @discardableResult
    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.command("BEGIN")
            let result = try body(connection)
            try connection.commit()
            commits.add(1, ordering: .releasing)
            return (result, connection.takeCommitActions())
        }
    }

    /// Lends a connection to `body`; on a throw rolls back whatever it left open, and runs `body` once more on a
    /// fresh connection if the one lent had died while idle and failed the first statement. Errors come out as
    /// `StoreError`.
    private func withConnection<T>(
        _ body: (PostgresConnection) throws -> (T, [@Sendable () -> Void])
    ) throws -> T {
        var attempt = 1
        while true {
            let (connection, reused) = try acquireOrThrow()
            let outcome: (T, [@Sendable () -> Void])
            do {
                outcome = try body(connection)
            } catch {
                connection.rollback()
                _ = connection.takeCommitActions()
                let retry = attempt == 1 && reused && connection.isBroken && connection.statementsStarted <= 1
                pool.release(connection)
                if retry {
                    attempt += 1
                    continue
                }
                throw (error as? PostgresError)?.storeError ?? error
            }
            pool.release(connection)
            for action in outcome.1 { action() }
            return outcome.0
        }
    }

    private func acquireOrThrow() throws -> (PostgresConnection, Bool) {
        do { return try pool.acquire() } catch { throw error.storeError }
    }
}
