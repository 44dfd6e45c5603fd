/// One connection to a SQL database, used by one thread at a time.
package protocol SQLConnection: AnyObject {
    /// Runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    func execute(_ query: SQLQuery) throws -> Int
    /// Runs a query and hands each row to `body`.
    func forEachRow(_ query: SQLQuery, _ body: (SQLRow) throws -> Void) throws
    /// Runs a script of statements without bindings (migrations).
    func executeScript(_ sql: String) throws
    /// Runs `action` after the `write` transaction this connection is in commits (once the database is free for
    /// the next writer), or never if it rolls back. Outside a `write` it runs `action` at once.
    func afterCommit(_ action: @escaping @Sendable () -> Void)
    /// Most rows an `insertRows` statement carries (a power of two).
    var rowsPerInsert: Int { get }
    /// Most rows an `insertRows` statement carries as arrays, a column's values bound as one; 0 where arrays do not
    /// bind (SQLite), which takes `VALUES` lists of `rowsPerInsert` rows.
    var rowsPerArrayInsert: Int { get }
}

extension SQLConnection {
    /// Every row of `query`.
    package func rows(_ query: SQLQuery) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        try forEachRow(query) { rows.append($0) }
        return rows
    }

    /// The first row of `query`, if any.
    package func row(_ query: SQLQuery) throws -> SQLRow? {
        var first: SQLRow?
        try forEachRow(query) { row in if first == nil { first = row } }
        return first
    }

    /// The first column of the first row as an integer (0 when there is none).
    package func scalar(_ query: SQLQuery) throws -> Int64 {
        try row(query)?.int(0) ?? 0
    }
}

/// A SQL database: connections for reading and one writer inside transactions.
package protocol SQLDatabase: Sendable {
    /// How this database spells what SQL engines disagree on.
    var dialect: SQLDialect { get }
    /// Runs `body` with a connection that sees committed data.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    @discardableResult
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs migrations' statements in one transaction, as `write` does, with what a schema change needs of the
    /// engine: SQLite checks foreign keys once at the end instead of on each statement (a table rebuilt to change a
    /// column's constraints is dropped and its copy renamed into its place).
    func migrate<T>(_ body: (any SQLConnection) throws -> T) throws -> T
}

extension SQLDatabase {
    package func migrate<T>(_ body: (any SQLConnection) throws -> T) throws -> T { try write(body) }
}

/// The words that differ between SQL engines.
package struct SQLDialect: Sendable {
    /// Engine name (`sqlite`, `postgres`).
    package var name: String
    /// Column definition of an auto-incrementing 64-bit primary key that never reuses ids.
    package var identityPrimaryKey: String
    /// Type of a byte-string column.
    package var blobType: String
    /// Suffix of a claim sub-select: `FOR UPDATE SKIP LOCKED` where rows can be locked, empty where the writer is alone.
    package var skipLocked: String
    /// Suffix of a read whose row the transaction goes on to update from what it read (a balance): `FOR UPDATE`
    /// where another connection could change the row in between, empty where the writer is alone.
    package var forUpdate: String
    /// A statement run first in the migration transaction that holds it against other processes migrating the
    /// same database at once, until the transaction ends; empty where the writer is alone.
    package var migrationLock: String
    /// Whether the delivery queue keeps its due jobs in a narrow table of their own (`delivery_due`) and its leases
    /// as one row per claim (`delivery_claims`), updating each job's `deliveries` row in place (PostgreSQL: no index
    /// reads its status, so both writes of a push are HOT updates), rather than moving the row between partial
    /// indexes of `deliveries` (SQLite, where that is cheapest).
    package var queueTables: Bool
    /// Whether a list of values can be bound as one array parameter (`\(in:_:)`, `\(array:)`, `insertRows`'
    /// arrays): PostgreSQL, which prepares each statement's text once per connection, so that a list's length
    /// does not change the text.
    package var bindsArrays: Bool

    /// SQLite: one writer at a time, so claims and read-modify-writes need no row locks.
    package static let sqlite = SQLDialect(
        name: "sqlite", identityPrimaryKey: "INTEGER PRIMARY KEY AUTOINCREMENT", blobType: "BLOB", skipLocked: "",
        forUpdate: "", migrationLock: "", queueTables: false, bindsArrays: false)
    /// PostgreSQL: several nodes claim from one queue and update the same users, and may start (and migrate) at
    /// once: the migration lock is a transaction-scoped advisory lock on a key of Herald's own ("herald\0m").
    package static let postgres = SQLDialect(
        name: "postgres", identityPrimaryKey: "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", blobType: "BYTEA",
        skipLocked: "FOR UPDATE SKIP LOCKED", forUpdate: "FOR UPDATE",
        migrationLock: "SELECT pg_advisory_xact_lock(7522544515348168813)", queueTables: true,
        bindsArrays: true)
}
