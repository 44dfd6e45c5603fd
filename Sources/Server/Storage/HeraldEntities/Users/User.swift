import HeraldModel

/// A user of a business's app.
public struct User: Sendable, Equatable {
    /// Store id (Punchh's `user_id`).
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Email, stored lower-cased; unique per business.
    public var email: String?
    /// Password hash in the hasher's self-describing format; empty for a user an import made who has not signed up.
    public var passwordHash: String
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// Phone number, if given; unique per business when set.
    public var phone: String?
    /// Loyalty points balance.
    public var points: Int64
    /// Banked currency from point conversions.
    public var bankedCurrency: Money
    /// Changes whenever the user's inbox does (an entry added, read or deleted): a cheap validator for
    /// cached inbox pages and ETags, kept in the store so every node sees it.
    public var inboxVersion: Int64
    /// When the user signed up.
    public var createdAt: Timestamp
    /// When the profile last changed.
    public var updatedAt: Timestamp
    /// The business's own id for the user (set by an import), unique per business.
    public var externalID: String?
    /// What the business knows of the user (imported), for audiences: a JSON object.
    public var attributes: JSON

    /// Made by an import and not signed up as yet (no password): a sign-up with its email claims it.
    public var awaitsSignUp: Bool { passwordHash.isEmpty }

    /// A user record.
    public init(
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
public struct NewUser: Sendable {
    /// Owning business.
    public var businessID: Int64
    /// Email (lower-cased by the caller).
    public var email: String
    /// Password hash.
    public var passwordHash: String
    /// Given name.
    public var firstName: String
    /// Family name.
    public var lastName: String
    /// Phone, if any.
    public var phone: String?

    /// The fields of a new user.
    public init(
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
