import CSQLite
import HeraldStore

#if canImport(Glibc)
    import Glibc
#endif

/// Copies a SQLite database with SQLite's online backup API: the copy is one consistent snapshot (the WAL's
/// committed pages included) even while Herald writes to the source, which copying `herald.db` alone is not.
package enum SQLiteBackup {
    /// Why a backup or restore failed, naming the file and SQLite's reason.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        package let description: String
    }

    /// Copies the database at `source` into a new file at `destination` (which must not exist), readable by its
    /// owner only (0600) whatever the umask: it holds what the database holds (emails, password hashes, sealed
    /// secrets). Returns the number of pages copied.
    @discardableResult
    package static func backup(from source: String, to destination: String) throws -> Int {
        // Made here, 0600, before SQLite opens it (and refused if it exists, in the same step).
        let created = Glibc.open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw Failure(
                description: errno == EEXIST
                    ? "\(destination) already exists; choose a new file"
                    : "cannot create \(destination): \(String(cString: strerror(errno)))")
        }
        close(created)
        defer { SQLiteDatabase.restrictFiles(destination) }
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite3_close_v2(to) }
        return try copy(from: from, source: source, to: to, destination: destination)
    }

    /// Replaces the database at `destination` with the backup at `source`, after checking that `source` is an
    /// intact Herald database. Herald must not be running on `destination`.
    @discardableResult
    package static func restore(from source: String, to destination: String) throws -> Int {
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        guard try scalarText(from, "PRAGMA quick_check", file: source) == "ok" else {
            throw Failure(description: "\(source) is damaged (PRAGMA quick_check failed); not restoring it")
        }
        guard
            try scalarText(
                from, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
                file: source) == "schema_migrations"
        else { throw Failure(description: "\(source) is not a Herald database (no schema_migrations table)") }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite3_close_v2(to) }
        let pages = try copy(from: from, source: source, to: to, destination: destination)
        // The restored database keeps WAL mode, as Herald opens it.
        sqlite3_exec(to, "PRAGMA journal_mode = WAL", nil, nil, nil)
        return pages
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        SQLiteConnection.configured
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5000)
        return handle
    }

    private static func scalarText(_ handle: OpaquePointer, _ sql: String, file: String) throws -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "cannot read \(file): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW else {
            if status == SQLITE_DONE { return nil }
            throw Failure(description: "cannot read \(file): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return sqlite3_column_text(statement, 0).map { String(cString: $0) }
    }

    private static func copy(
        from: OpaquePointer, source: String, to: OpaquePointer, destination: String
    ) throws -> Int {
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw Failure(
                description: "cannot copy \(source) to \(destination): \(String(cString: sqlite3_errmsg(to)))")
        }
        // One step copies every page under one read transaction of the source: a consistent snapshot.
        var status = sqlite3_backup_step(backup, -1)
        while status == SQLITE_BUSY || status == SQLITE_LOCKED {
            sqlite3_sleep(50)
            status = sqlite3_backup_step(backup, -1)
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else {
            throw Failure(
                description:
                    "cannot copy \(source) to \(destination): \(String(cString: sqlite3_errstr(status)))")
        }
        return pages
    }
}
