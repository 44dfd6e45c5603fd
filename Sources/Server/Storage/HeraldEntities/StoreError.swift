/// Why a store operation failed. Carries no secrets and no SQL values.
public struct StoreError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        public let rawValue: String
        /// A code named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The row asked for does not exist (or belongs to someone else).
        public static let notFound = Code("not_found")
        /// A unique value is already taken; `field` names it.
        public static let conflict = Code("conflict")
        /// The database refused or failed.
        public static let database = Code("database")
        /// The stored schema is newer than this program knows.
        public static let schema = Code("schema")
        /// The transaction lost a race with another (a serialization failure or a deadlock) and was rolled back:
        /// running it again, whole, may succeed.
        public static let retryable = Code("retryable")

        public var description: String { rawValue }
    }

    /// What kind of failure.
    public let code: Code
    /// The field concerned, for conflicts (`email`, `transaction_id`).
    public let field: String?
    /// A human explanation (never contains bound values).
    public let message: String

    /// An error with `code`.
    public init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// Not found.
    public static func notFound(_ what: String) -> StoreError { StoreError(.notFound, "\(what) not found") }

    public var description: String { "\(code): \(message)" }
}
