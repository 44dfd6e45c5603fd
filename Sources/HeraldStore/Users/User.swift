import HeraldModel

/// A user of a business's app.
public struct User: Sendable, Equatable {
    /// Store id (Punchh's `user_id`).
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Email, stored lower-cased; unique per business.
    public var email: String
    /// Password hash in the hasher's self-describing format.
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

    /// A user record.
    public init(
        id: Int64, businessID: Int64, email: String, passwordHash: String, firstName: String, lastName: String,
        phone: String? = nil, points: Int64 = 0, bankedCurrency: Money = .zero, inboxVersion: Int64 = 0,
        createdAt: Timestamp,
        updatedAt: Timestamp
    ) {
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

/// A phone or tablet a user signed in on, and its push token.
public struct Device: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// The user signed in on it now.
    public var userID: Int64
    /// The app's `punchh-app-device-id`, or a key derived from the user and platform when the app sends none.
    public var deviceKey: String
    /// APNs (iOS) or FCM (Android).
    public var platform: PushPlatform
    /// The push token; nil once cleared (logout, `""`, or pruned as dead).
    public var token: String?
    /// When the token was last registered; APNs' 410 timestamp is compared with it.
    public var tokenUpdatedAt: Timestamp?
    /// The app's User-Agent.
    public var userAgent: String?
    /// When the device was first seen.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp

    /// A device record.
    public init(
        id: Int64, businessID: Int64, userID: Int64, deviceKey: String, platform: PushPlatform, token: String?,
        tokenUpdatedAt: Timestamp?, userAgent: String?, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.userID = userID
        self.deviceKey = deviceKey
        self.platform = platform
        self.token = token
        self.tokenUpdatedAt = tokenUpdatedAt
        self.userAgent = userAgent
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A signed-in session: an access token (stored hashed) bound to a user and the device it was issued on.
public struct Session: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// SHA-256 (hex) of the access token.
    public var tokenHash: String
    /// Owning business.
    public var businessID: Int64
    /// The signed-in user.
    public var userID: Int64
    /// The device it was issued on, if known.
    public var deviceID: Int64?
    /// Issued at.
    public var createdAt: Timestamp
    /// Unusable after this.
    public var expiresAt: Timestamp
    /// Set on logout.
    public var revokedAt: Timestamp?

    /// A session record.
    public init(
        id: Int64, tokenHash: String, businessID: Int64, userID: Int64, deviceID: Int64?, createdAt: Timestamp,
        expiresAt: Timestamp, revokedAt: Timestamp? = nil
    ) {
        self.id = id
        self.tokenHash = tokenHash
        self.businessID = businessID
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

}
