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

/// A phone or tablet a user signed in on, and its push token.
public struct Device: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// The user signed in on it now (nil: an install nobody has signed in on, or imported without a user).
    public var userID: Int64?
    /// The app's `punchh-app-device-id` (an SDK install's `install_id` is the same key: one phone, one device), or
    /// a key derived from the user and platform when the app sends none.
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
    /// What the SDK registered about it, if it is an install (nil for a device only the Punchh API knows).
    public var install: Install?

    /// A device record.
    public init(
        id: Int64, businessID: Int64, userID: Int64?, deviceKey: String, platform: PushPlatform, token: String?,
        tokenUpdatedAt: Timestamp?, userAgent: String?, createdAt: Timestamp, updatedAt: Timestamp,
        install: Install? = nil
    ) {
        self.install = install
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

/// What an SDK install registers about its device (README: "The device API"), beside the push token the device holds.
public struct Install: Sendable, Equatable {
    /// `live` or `sandbox`: the API key it registered with.
    public var workspace: Workspace
    /// Its credential's public id (`X-Herald-Key-Id`).
    public var keyID: String
    /// Its credential's secret, sealed by the server.
    public var sealedSecret: [UInt8]
    /// `sandbox` or `production` for an APNs token.
    public var apnsEnvironment: String?
    /// The app's version.
    public var appVersion: String?
    /// The OS's version.
    public var osVersion: String?
    /// The device model.
    public var deviceModel: String?
    /// BCP 47 locale (`en-US`).
    public var locale: String?
    /// IANA time zone (`America/New_York`): what local times and quiet hours are in.
    public var timeZone: String?
    /// The SDK's version.
    public var sdkVersion: String?
    /// Whether the user allows notifications.
    public var notificationsEnabled: Bool?
    /// `always`, `when_in_use` or `none`.
    public var locationPermission: String?
    /// A sandbox install's standing as a test device: `pending` until approved, then `approved`.
    public var testStatus: String?
    /// The code an admin approves a sandbox install with.
    public var approvalCode: String?
    /// When it last called.
    public var lastSeenAt: Timestamp?

    /// The workspace an install belongs to.
    public struct Workspace: Sendable, Hashable, CustomStringConvertible {
        /// Its name.
        public let rawValue: String
        /// The workspace named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The business's real users.
        public static let live = Workspace("live")
        /// Test devices: sandbox campaigns only.
        public static let sandbox = Workspace("sandbox")
        public var description: String { rawValue }
    }

    /// An install's details.
    public init(
        workspace: Workspace, keyID: String, sealedSecret: [UInt8], apnsEnvironment: String? = nil,
        appVersion: String? = nil, osVersion: String? = nil, deviceModel: String? = nil, locale: String? = nil,
        timeZone: String? = nil, sdkVersion: String? = nil, notificationsEnabled: Bool? = nil,
        locationPermission: String? = nil, testStatus: String? = nil, approvalCode: String? = nil,
        lastSeenAt: Timestamp? = nil
    ) {
        self.workspace = workspace
        self.keyID = keyID
        self.sealedSecret = sealedSecret
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timeZone = timeZone
        self.sdkVersion = sdkVersion
        self.notificationsEnabled = notificationsEnabled
        self.locationPermission = locationPermission
        self.testStatus = testStatus
        self.approvalCode = approvalCode
        self.lastSeenAt = lastSeenAt
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
