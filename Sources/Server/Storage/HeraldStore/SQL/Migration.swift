/// One change to the schema, applied once, in order, and recorded in `schema_migrations`.
package struct Migration: Sendable {
    /// Position in the sequence; never reused.
    package var version: Int
    /// What it does.
    package var name: String
    /// The statements, spelled for a dialect.
    package var statements: @Sendable (SQLDialect) -> [String]

    /// A migration.
    package init(version: Int, name: String, statements: @escaping @Sendable (SQLDialect) -> [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// Applies migrations at start-up.
package enum Migrator {
    /// Applies every migration the database has not recorded, in order of version, in one transaction. Returns the versions applied.
    /// A database newer than `migrations` is refused rather than written to. Processes that start at once take
    /// turns (the dialect's `migrationLock`): the first applies, the others find nothing left to do.
    @discardableResult
    package static func migrate(_ database: any SQLDatabase, _ migrations: [Migration], at now: Int64) throws -> [Int] {
        try database.migrate { connection in
            if !database.dialect.migrationLock.isEmpty {
                try connection.execute("\(raw: database.dialect.migrationLock)")
            }
            try connection.executeScript(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
            )
            let recorded = Set(try connection.rows("SELECT version FROM schema_migrations").map { Int($0.int(0)) })
            let current = recorded.max() ?? 0
            let known = migrations.map(\.version).max() ?? 0
            guard current <= known else {
                throw StoreError(.schema, "database schema version \(current) is newer than this program's \(known)")
            }
            var applied: [Int] = []
            // Every version not recorded yet, not only those above the newest: migrations written on branches that
            // land in another order than they were numbered are applied too (each stands alone).
            for migration in migrations.sorted(by: { $0.version < $1.version })
            where !recorded.contains(migration.version) {
                for statement in migration.statements(database.dialect) {
                    try connection.executeScript(statement)
                }
                try connection.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(now))"
                )
                applied.append(migration.version)
            }
            return applied
        }
    }
}
