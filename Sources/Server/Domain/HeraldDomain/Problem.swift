/// One thing a rule found wrong, on the field it concerns: what a caller that gathers every problem at once (to
/// answer them together) gets instead of the first as a `DomainError`.
package struct Problem: Sendable, Equatable {
    /// The field concerned (`conversion_offer_id`).
    package var field: String
    /// What is wrong, for the client.
    package var message: String

    /// A problem with `field`.
    package init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}
