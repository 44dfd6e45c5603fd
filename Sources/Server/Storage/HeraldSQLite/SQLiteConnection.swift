import CSQLite
import HeraldStore

/// One SQLite connection with a cache of prepared statements. Not thread-safe: `SQLiteDatabase` hands each
/// connection to one thread at a time.
package final class SQLiteConnection: SQLConnection, @unchecked Sendable {  // used by one thread at a time
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private var commitActions: [@Sendable () -> Void] = []
    private static let statementCacheLimit = 256
    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.pointee = 0
        return UnsafePointer(pointer)
    }()

    /// SQLite's process-wide settings, made before the first connection opens (they cannot change after).
    static let configured: Void = {
        // No count of SQLite's memory (nothing reads it): the count took a mutex on every allocation, 4 % of
        // the instructions of a claim and its answers' record.
        _ = herald_sqlite3_disable_memstatus()
    }()

    /// Opens (creating if needed) the database at `path` in WAL mode with foreign keys on.
    package init(path: String) throws {
        Self.configured
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StoreError(.database, "cannot open SQLite database: \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        try executeScript(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA busy_timeout = 5000;
            PRAGMA temp_store = MEMORY;
            """)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private func error(_ status: Int32, _ context: String) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        if status == herald_sqlite_constraint_unique || status == herald_sqlite_constraint_primarykey {
            return StoreError(.conflict, field: Self.conflictField(message), "\(context): \(message)")
        }
        return StoreError(.database, "\(context): \(message) (SQLite \(status))")
    }

    /// The field of a uniqueness violation, from SQLite's message: "UNIQUE constraint failed: users.business_id,
    /// users.email" names the table and columns, "… failed: index 'rewards_code'" an index on expressions.
    static func conflictField(_ message: String) -> String? {
        guard let range = message.range(of: "constraint failed: ") else { return nil }
        let subject = message[range.upperBound...]
        if subject.hasPrefix("index '") {
            return UniqueKey.field(constraint: String(subject.dropFirst("index '".count).prefix { $0 != "'" }))
        }
        let qualified = subject.split(separator: ",").map { $0.drop { $0 == " " } }
        let parts = qualified.map { $0.split(separator: ".", maxSplits: 1) }
        guard let table = parts.first?.first, parts.allSatisfy({ $0.count == 2 && $0[0] == table }) else { return nil }
        return UniqueKey.field(table: String(table), columns: parts.map { String($0[1]) })
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, "prepare failed") }
        if statements.count >= Self.statementCacheLimit {
            for cached in statements.values { sqlite3_finalize(cached) }
            statements.removeAll(keepingCapacity: true)
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ query: SQLQuery, to statement: OpaquePointer) throws {
        for (offset, value) in query.bindings.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .real(let number): status = sqlite3_bind_double(statement, index, number)
            case .text(var text):
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        guard let base = chars.baseAddress else {
                            return herald_sqlite3_bind_text(statement, index, Self.empty, 0)
                        }
                        return herald_sqlite3_bind_text(statement, index, base, Int32(chars.count))
                    }
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { raw in
                    herald_sqlite3_bind_blob(
                        statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(raw.count))
                }
            }
            guard status == SQLITE_OK else { throw error(status, "bind failed") }
        }
    }

    @discardableResult
    package func execute(_ query: SQLQuery) throws -> Int {
        let statement = try prepared(query.sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(query, to: statement)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            if status != SQLITE_ROW { throw error(status, "statement failed") }
        }
        return Int(sqlite3_changes(handle))
    }

    package func forEachRow(_ query: SQLQuery, _ body: (SQLRow) throws -> Void) throws {
        let statement = try prepared(query.sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(query, to: statement)
        let columns = sqlite3_column_count(statement)
        // One buffer for every row: the body's row is gone by the next one (unless it kept it), so emptying it
        // keeps its storage instead of allocating a row's worth again.
        var values: [SQLValue] = []
        values.reserveCapacity(Int(columns))
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw error(status, "query failed") }
            values.removeAll(keepingCapacity: true)
            for column in 0..<columns {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let text = sqlite3_column_text(statement, column) {
                        values.append(
                            .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let blob = sqlite3_column_blob(statement, column), count > 0 {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: blob, count: count))))
                    } else {
                        values.append(.blob([]))
                    }
                default: values.append(.null)
                }
            }
            try body(SQLRow(values: values))
        }
    }

    package func afterCommit(_ action: @escaping @Sendable () -> Void) {
        if sqlite3_get_autocommit(handle) == 0 { commitActions.append(action) } else { action() }
    }

    /// The actions `afterCommit` queued in this transaction, handed over (after a commit) or dropped (rollback).
    func takeCommitActions() -> [@Sendable () -> Void] {
        defer { commitActions.removeAll() }
        return commitActions
    }

    package func executeScript(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw StoreError(.database, "script failed: \(text)")
        }
    }
}
