/// Why a store operation failed. Carries no secrets and no SQL values.
public struct StoreError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        package let rawValue: String
        /// A code named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The row asked for does not exist (or belongs to someone else).
        package static let notFound = Code("not_found")
        /// A unique value is already taken; `field` names it.
        package static let conflict = Code("conflict")
        /// The database refused or failed.
        package static let database = Code("database")
        /// The stored schema is newer than this program knows.
        package static let schema = Code("schema")
        /// The transaction lost a race with another (a serialization failure or a deadlock) and was rolled back:
        /// running it again, whole, may succeed.
        package static let retryable = Code("retryable")

        package var description: String { rawValue }
    }

    /// What kind of failure.
    package let code: Code
    /// The field concerned, for conflicts (`email`, `transaction_id`).
    package let field: String?
    /// A human explanation (never contains bound values).
    package let message: String

    /// An error with `code`.
    package init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// Not found.
    package static func notFound(_ what: String) -> StoreError { StoreError(.notFound, "\(what) not found") }

    public var description: String { "\(code): \(message)" }
}
