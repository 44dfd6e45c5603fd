import HeraldModel

/// A user of a business's app.
public struct User: Sendable, Equatable {
    /// Store id (Punchh's `user_id`).
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Email, stored lower-cased; unique per business.
    package var email: String?
    /// Password hash in the hasher's self-describing format; empty for a user an import made who has not signed up.
    package var passwordHash: String
    /// Given name.
    package var firstName: String
    /// Family name.
    package var lastName: String
    /// Phone number, if given; unique per business when set.
    package var phone: String?
    /// Loyalty points balance.
    package var points: Int64
    /// Banked currency from point conversions.
    package var bankedCurrency: Money
    /// Changes whenever the user's inbox does (an entry added, read or deleted): a cheap validator for
    /// cached inbox pages and ETags, kept in the store so every node sees it.
    package var inboxVersion: Int64
    /// When the user signed up.
    package var createdAt: Timestamp
    /// When the profile last changed.
    package var updatedAt: Timestamp
    /// The business's own id for the user (set by an import), unique per business.
    package var externalID: String?
    /// What the business knows of the user (imported), for audiences: a JSON object.
    package var attributes: JSON

    /// Made by an import and not signed up as yet (no password): a sign-up with its email claims it.
    package var awaitsSignUp: Bool { passwordHash.isEmpty }

    /// A user record.
    package init(
        id: Int64, businessID: Int64, email: String?, passwordHash: String, firstName: String, lastName: String,
        phone: String? = nil, points: Int64 = 0, bankedCurrency: Money = .zero, inboxVersion: Int64 = 0,
        externalID: String? = nil, attributes: JSON = .object([]), createdAt: Timestamp,
        updatedAt: Timestamp
    ) {
        self.externalID = externalID
        self.attributes = attributes
        self.id = id
        self.businessID = businessID
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
        self.points = points
        self.bankedCurrency = bankedCurrency
        self.inboxVersion = inboxVersion
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a sign-up stores.
package struct NewUser: Sendable {
    /// Owning business.
    package var businessID: Int64
    /// Email (lower-cased by the caller).
    package var email: String
    /// Password hash.
    package var passwordHash: String
    /// Given name.
    package var firstName: String
    /// Family name.
    package var lastName: String
    /// Phone, if any.
    package var phone: String?

    /// The fields of a new user.
    package init(
        businessID: Int64, email: String, passwordHash: String, firstName: String, lastName: String,
        phone: String? = nil
    ) {
        self.businessID = businessID
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
    }
}
