import HeraldStore

/// An error from PostgreSQL or from libpq, safe to log.
///
/// `message` is PostgreSQL's primary message only — never its DETAIL or the statement's values, which quote row
/// data — and for the classes whose primary message quotes a value (22 data exceptions, P0 raised by a function,
/// XX internal) a fixed text naming the class instead. Connection errors never carry the password: libpq's text is
/// stripped of it.
///
/// ```swift
/// do {
///     try database.write { db in try db.execute("INSERT INTO users …") }
/// } catch let error as StoreError where error.code == .conflict {
///     // error.field == "email": from the violated constraint's name (UniqueKey)
/// }
/// ```
package struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SQLSTATE: five characters, the first two naming the class. An open set.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The five characters.
        package let rawValue: String
        /// The code `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The class: the first two characters (`23` integrity constraint violations, `08` connection exceptions).
        package var errorClass: String { String(rawValue.prefix(2)) }

        /// A unique constraint or index refused a duplicate.
        package static let uniqueViolation = Code("23505")
        /// A serializable transaction could not be ordered with another; run it again.
        package static let serializationFailure = Code("40001")
        /// Two transactions waited for each other; one was rolled back; run it again.
        package static let deadlockDetected = Code("40P01")
        /// The connection failed or was lost.
        package static let connectionFailure = Code("08006")
        /// No connection could be made (or the connection string is unreadable).
        package static let unableToConnect = Code("08001")
        /// An administrator ended the session (`pg_terminate_backend`, a fast shutdown).
        package static let adminShutdown = Code("57P01")
        /// The server crashed.
        package static let crashShutdown = Code("57P02")
        /// The server is starting or shutting down.
        package static let cannotConnectNow = Code("57P03")
        /// The SQL does not parse.
        package static let syntaxError = Code("42601")
        /// A text value holds a character the database cannot store (NUL).
        package static let characterNotInRepertoire = Code("22021")
        /// COMMIT found the transaction failed by an earlier statement (whose error was caught and ignored).
        package static let inFailedTransaction = Code("25P02")
        /// The pool had no connection free in time (not from the server: Herald's own).
        package static let poolTimeout = Code("HR001")

        package var description: String { rawValue }
    }

    /// The SQLSTATE.
    package let code: Code
    /// What failed, without values or secrets.
    package let message: String
    /// The constraint or index a constraint violation names.
    package let constraint: String?
    /// The table a constraint violation names.
    package let table: String?

    /// An error with `code`. `message` must hold no values or secrets.
    package init(_ code: Code, _ message: String, constraint: String? = nil, table: String? = nil) {
        self.code = code
        self.message = message
        self.constraint = constraint
        self.table = table
    }

    /// Whether the connection it happened on is gone: a connection exception (class 08), or the server ended the
    /// session (57P01–57P03).
    package var isConnectionLost: Bool {
        code.errorClass == "08" || code == .adminShutdown || code == .crashShutdown || code == .cannotConnectNow
    }

    /// Whether running the transaction again may succeed: a serialization failure or a deadlock.
    package var isRetryable: Bool { code == .serializationFailure || code == .deadlockDetected }

    /// The store's view: a unique violation is a `.conflict` on the field `UniqueKey` maps its constraint to;
    /// a serialization failure or deadlock is `.retryable`; anything else is `.database`.
    package var storeError: StoreError {
        if code == .uniqueViolation {
            let field = constraint.flatMap { UniqueKey.field(constraint: $0) }
            return StoreError(.conflict, field: field, "\(field ?? constraint ?? "a unique value") already taken")
        }
        if isRetryable { return StoreError(.retryable, description) }
        return StoreError(.database, description)
    }

    package var description: String { "PostgreSQL \(code): \(message)" }

    /// Whether PostgreSQL's primary message for errors of this class may quote a value (`invalid input syntax for
    /// type bigint: "…"`), so that only a fixed text may be shown.
    static func mayQuoteValues(_ code: Code) -> Bool {
        ["22", "P0", "XX"].contains(code.errorClass)
    }

    /// The fixed text shown instead of a message that may quote a value.
    static func fixedMessage(_ code: Code) -> String {
        switch code.errorClass {
        case "22": return "a value was refused (data exception)"
        case "P0": return "a database function raised an error"
        default: return "internal database error"
        }
    }
}
