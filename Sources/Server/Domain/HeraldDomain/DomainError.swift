/// Why the domain refused an operation: a rule, not the database. Carries no secrets.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        public let rawValue: String
        /// A code named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// What the operation names does not exist (or is someone else's).
        public static let notFound = Code("not_found")
        /// The operation conflicts with the state of what it names (already redeemed, another user's).
        public static let conflict = Code("conflict")
        /// The operation's input breaks a rule (an offer outside its window).
        public static let invalid = Code("invalid")

        public var description: String { rawValue }
    }

    /// What kind of refusal.
    public let code: Code
    /// The field concerned (`transaction_id`, `redemption_code`), or nil.
    public let field: String?
    /// What went wrong, for the client.
    public let message: String

    /// A refusal.
    public init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// `what` does not exist.
    public static func notFound(_ what: String) -> DomainError { DomainError(.notFound, "\(what) not found") }

    public var description: String { "\(code): \(message)" }
}
