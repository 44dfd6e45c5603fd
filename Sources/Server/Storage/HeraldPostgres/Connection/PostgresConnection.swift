import CLibPQ
import HeraldStore

/// One PostgreSQL connection with a cache of prepared statements. Not thread-safe: `PostgresDatabase` hands each
/// connection to one thread at a time.
///
/// Every statement is prepared once per connection (`PQprepare`, keyed by its SQL text) and then executed with
/// its values bound (`PQexecPrepared`); results come back in text format and are decoded once, by column type,
/// into `SQLValue`s (`PostgresValueDecoder`). Errors come out as `StoreError` (`PostgresError.storeError`).
package final class PostgresConnection: SQLConnection, @unchecked Sendable {  // used by one thread at a time
    private struct Statement {
        let name: String
        let types: [PostgresType]
    }

    private let handle: OpaquePointer
    private let settings: PostgresConnectionSettings
    private var statements: [String: Statement] = [:]
    private var preparedCount = 0
    private var commitActions: [@Sendable () -> Void] = []
    private static let statementCacheLimit = 256

    /// Whether the connection is gone (the server closed it, or it failed in a way that leaves it unusable); the
    /// pool drops it.
    package private(set) var isBroken = false
    /// Statements started since the pool lent the connection: a `read` whose first statement found the connection
    /// broken may run again on another.
    var statementsStarted = 0

    /// Connects (blocking). Throws a `PostgresError` naming why not, without the password.
    init(settings: PostgresConnectionSettings) throws(PostgresError) {
        self.settings = settings
        guard let handle = settings.connect() else { throw PostgresError(.unableToConnect, "out of memory") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = settings.redacting(Self.firstLine(String(cString: PQerrorMessage(handle))))
            PQfinish(handle)
            throw PostgresError(.unableToConnect, "cannot connect to PostgreSQL: \(message)")
        }
        herald_pq_silence_notices(handle)
        self.handle = handle
    }

    deinit { PQfinish(handle) }

    /// Whether the connection can take a statement outside a transaction: alive, and not left inside one.
    var isIdle: Bool {
        !isBroken && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether a transaction is open (possibly failed).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    // MARK: - SQLConnection

    @discardableResult
    package func execute(_ query: SQLQuery) throws -> Int {
        do {
            let result = try run(query)
            defer { PQclear(result) }
            return Int(String(cString: PQcmdTuples(result))) ?? 0
        } catch {
            throw error.storeError
        }
    }

    package func forEachRow(_ query: SQLQuery, _ body: (SQLRow) throws -> Void) throws {
        let result: OpaquePointer
        do { result = try run(query) } catch { throw error.storeError }
        defer { PQclear(result) }
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        let types = (0..<columns).map { PostgresType(oid: PQftype(result, $0)) }
        // One buffer for every row (see SQLiteConnection.forEachRow).
        var values: [SQLValue] = []
        values.reserveCapacity(Int(columns))
        for row in 0..<rows {
            values.removeAll(keepingCapacity: true)
            for column in 0..<columns {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(.null)
                    continue
                }
                let count = Int(PQgetlength(result, row, column))
                let value = PQgetvalue(result, row, column)!
                let bytes = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
                values.append(
                    PostgresValueDecoder.decode(
                        UnsafeBufferPointer(start: bytes, count: count), type: types[Int(column)]))
            }
            try body(SQLRow(values: values))
        }
    }

    package func executeScript(_ sql: String) throws {
        statementsStarted += 1
        do { PQclear(try checked(PQexec(handle, sql))) } catch { throw error.storeError }
    }

    /// 256: a statement is a round trip here, and each carries its own bind, start and end (measured against 64
    /// on a campaign's fan-out: bench/RESULTS.md).
    package var rowsPerInsert: Int { 256 }

    /// 1,024: `insertRows` binds each column's values as one array here (see `SQLConnection.rowsPerArrayInsert`).
    package var rowsPerArrayInsert: Int { 1_024 }

    package func afterCommit(_ action: @escaping @Sendable () -> Void) {
        if isInTransaction { commitActions.append(action) } else { action() }
    }

    // MARK: - Transactions (PostgresDatabase)

    /// Runs one command without values or prepared statement (BEGIN, COMMIT, LISTEN); returns its command tag.
    @discardableResult
    func command(_ sql: String) throws(PostgresError) -> String {
        let result = try checked(PQexec(handle, sql))
        defer { PQclear(result) }
        return String(cString: PQcmdStatus(result))
    }

    /// Commits; a transaction PostgreSQL had already failed (a statement's error was caught and ignored) is rolled
    /// back by COMMIT, and that is an error here.
    func commit() throws(PostgresError) {
        guard try command("COMMIT") == "COMMIT" else {
            throw PostgresError(
                Code.inFailedTransaction, "the transaction was rolled back: a statement in it had failed")
        }
    }

    /// Rolls back whatever is open, ignoring failure (the connection may be gone).
    func rollback() {
        if isInTransaction, !isBroken { _ = try? command("ROLLBACK") }
    }

    /// The `afterCommit` actions of the transaction just ended, handed over (committed) or to drop (rolled back).
    func takeCommitActions() -> [@Sendable () -> Void] {
        defer { commitActions.removeAll() }
        return commitActions
    }

    /// Notifications the server sent, taken from libpq's queue (after `consumeInput` or any command).
    func takeNotifications() -> [(channel: String, payload: String)] {
        var taken: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            taken.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return taken
    }

    /// Reads what the server sent without blocking; false when the connection is gone.
    func consumeInput() -> Bool {
        if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
            isBroken = true
            return false
        }
        return true
    }

    // MARK: - Statements

    private typealias Code = PostgresError.Code

    private func run(_ query: SQLQuery) throws(PostgresError) -> OpaquePointer {
        statementsStarted += 1
        let statement = try prepared(query)
        let parameters = try PostgresParameters(query.bindings, types: statement.types)
        let result = parameters.withPointers { values, lengths, formats in
            PQexecPrepared(handle, statement.name, Int32(query.bindings.count), values, lengths, formats, 0)
        }
        return try checked(result)
    }

    private func prepared(_ query: SQLQuery) throws(PostgresError) -> Statement {
        if let statement = statements[query.sql] { return statement }
        if statements.count >= Self.statementCacheLimit {
            try command("DEALLOCATE ALL")
            statements.removeAll(keepingCapacity: true)
        }
        preparedCount += 1
        let statement = Statement(name: "herald_\(preparedCount)", types: query.bindings.map(PostgresType.of))
        let oids = statement.types.map(\.oid)
        PQclear(try checked(PQprepare(handle, statement.name, query.numbered, Int32(oids.count), oids)))
        statements[query.sql] = statement
        return statement
    }

    /// `result` if it succeeded; else the error it carries (freed), marking the connection broken if it is.
    private func checked(_ result: OpaquePointer?) throws(PostgresError) -> OpaquePointer {
        guard let result else {
            let error = PostgresError(
                PQstatus(handle) == CONNECTION_OK ? .unableToConnect : .connectionFailure,
                settings.redacting(Self.firstLine(String(cString: PQerrorMessage(handle)))))
            isBroken = isBroken || PQstatus(handle) != CONNECTION_OK
            throw error
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            let error = self.error(from: result)
            PQclear(result)
            if error.isConnectionLost || PQstatus(handle) != CONNECTION_OK { isBroken = true }
            throw error
        }
    }

    /// The error a failed result carries: its SQLSTATE and primary message (never DETAIL, which quotes values).
    private func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
        guard let sqlState = field(herald_pg_diag_sqlstate) else {
            // From libpq itself (the connection was lost): no server text in it.
            let code: Code = PQstatus(handle) == CONNECTION_OK ? .unableToConnect : .connectionFailure
            let message =
                field(herald_pg_diag_message_primary)
                ?? Self.firstLine(String(cString: PQresultErrorMessage(result)))
            return PostgresError(code, settings.redacting(message))
        }
        let code = Code(sqlState)
        let message =
            PostgresError.mayQuoteValues(code)
            ? PostgresError.fixedMessage(code) : field(herald_pg_diag_message_primary) ?? "error"
        return PostgresError(
            code, message, constraint: field(herald_pg_diag_constraint_name), table: field(herald_pg_diag_table_name))
    }

    static func firstLine(_ text: String) -> String {
        var line = text.prefix { !$0.isNewline }
        for prefix in ["ERROR:  ", "FATAL:  "] where line.hasPrefix(prefix) { line = line.dropFirst(prefix.count) }
        return String(line)
    }
}
