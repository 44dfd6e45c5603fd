/// Why the domain refused an operation: a rule, not the database. Carries no secrets.
package struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        package let rawValue: String
        /// A code named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// What the operation names does not exist (or is someone else's).
        package static let notFound = Code("not_found")
        /// The operation conflicts with the state of what it names (already redeemed, another user's).
        package static let conflict = Code("conflict")
        /// The operation's input breaks a rule (an offer outside its window).
        package static let invalid = Code("invalid")

        package var description: String { rawValue }
    }

    /// What kind of refusal.
    package let code: Code
    /// The field concerned (`transaction_id`, `redemption_code`), or nil.
    package let field: String?
    /// What went wrong, for the client.
    package let message: String

    /// A refusal.
    package init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// `what` does not exist.
    package static func notFound(_ what: String) -> DomainError { DomainError(.notFound, "\(what) not found") }

    package var description: String { "\(code): \(message)" }
}
