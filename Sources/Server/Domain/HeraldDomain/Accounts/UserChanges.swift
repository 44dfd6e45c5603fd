import HeraldModel
import HeraldStore

/// Profile fields to change; nil leaves a field as it is.
package struct UserChanges: Sendable {
    /// New email (lower-cased).
    package var email: String?
    /// New password hash.
    package var passwordHash: String?
    /// New given name.
    package var firstName: String?
    /// New family name.
    package var lastName: String?
    /// New phone; `.some(nil)` clears it.
    package var phone: String??

    /// No changes.
    package init(
        email: String? = nil, passwordHash: String? = nil, firstName: String? = nil, lastName: String? = nil,
        phone: String?? = nil
    ) {
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
    }
}

extension User {
    /// Takes `changes` (what they leave out stays), updated at `now`: what every store does with them.
    package mutating func apply(_ changes: UserChanges, at now: Timestamp) {
        if let email = changes.email { self.email = email }
        if let hash = changes.passwordHash { passwordHash = hash }
        if let first = changes.firstName { firstName = first }
        if let last = changes.lastName { lastName = last }
        if let phone = changes.phone { self.phone = phone }
        updatedAt = now
    }
}
