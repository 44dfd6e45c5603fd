import HeraldModel

/// A business running an app on Herald: the unit everything else belongs to.
public struct Business: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Display name.
    public var name: String
    /// The public client id the app sends as `"client"`.
    public var clientID: String
    /// The signing secret, sealed (AES-256-GCM) by the server; the store never sees it in clear.
    public var sealedSecret: [UInt8]
    /// SHA-256 (hex) of the POS key; the key itself is shown once, at creation.
    public var posKeyHash: String
    /// Business rules (point conversion, reminders).
    public var settings: BusinessSettings
    /// When it was created.
    public var createdAt: Timestamp

    /// A business record.
    public init(
        id: Int64, name: String, clientID: String, sealedSecret: [UInt8], posKeyHash: String,
        settings: BusinessSettings = .init(), createdAt: Timestamp
    ) {
        self.id = id
        self.name = name
        self.clientID = clientID
        self.sealedSecret = sealedSecret
        self.posKeyHash = posKeyHash
        self.settings = settings
        self.createdAt = createdAt
    }
}

/// Rules a business sets for its loyalty program.
public struct BusinessSettings: Sendable, Equatable {
    /// Points at which a user's balance converts (0 disables conversion).
    public var conversionThreshold: Int64
    /// What a conversion grants: an offer (`reward`) or banked currency (`currency`).
    public var conversionKind: String
    /// Currency granted per conversion, when `conversionKind` is `currency`.
    public var conversionCurrencyAmount: Money
    /// Offer granted per conversion, when `conversionKind` is `reward`.
    public var conversionOfferID: Int64?
    /// How long before an offer's expiry its reminder is sent, in seconds (0 disables reminders).
    public var offerReminderLeadSeconds: Int64
    /// An offer granted to every new user at sign-up, if set.
    public var welcomeOfferID: Int64?
    /// The membership levels, lowest first, the first from 0 points (what Transaction Details names).
    public var membershipLevels: [MembershipLevel]
    /// Whether the business vouches for the emails of the customers it imports: then a sign-up with an imported
    /// email claims that record at once; otherwise only with the one-time code mailed to the address.
    public var importTrusted = false

    /// Defaults: no conversion, reminders a day before expiry, no welcome offer, levels Member, Silver (500
    /// points) and Gold (2000).
    public init(
        conversionThreshold: Int64 = 0, conversionKind: String = "reward", conversionCurrencyAmount: Money = .zero,
        conversionOfferID: Int64? = nil, offerReminderLeadSeconds: Int64 = 86_400, welcomeOfferID: Int64? = nil,
        membershipLevels: [MembershipLevel] = MembershipLevel.defaults
    ) {
        self.conversionThreshold = conversionThreshold
        self.conversionKind = conversionKind
        self.conversionCurrencyAmount = conversionCurrencyAmount
        self.conversionOfferID = conversionOfferID
        self.offerReminderLeadSeconds = offerReminderLeadSeconds
        self.welcomeOfferID = welcomeOfferID
        self.membershipLevels = membershipLevels
    }

}

/// A membership level of a loyalty program: its name, from a balance of `fromPoints`.
public struct MembershipLevel: Sendable, Equatable {
    /// What the app shows (`Gold`).
    public var name: String
    /// The balance it starts at.
    public var fromPoints: Int64

    /// A level.
    public init(name: String, fromPoints: Int64) {
        self.name = name
        self.fromPoints = fromPoints
    }

    /// Member, Silver from 500 points, Gold from 2000.
    public static let defaults = [
        MembershipLevel(name: "Member", fromPoints: 0), MembershipLevel(name: "Silver", fromPoints: 500),
        MembershipLevel(name: "Gold", fromPoints: 2000),
    ]
}

/// A store location (where check-ins and redemptions happen).
public struct Location: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Display name ("Brooklyn Location").
    public var name: String
    /// The business's own number for the store.
    public var storeNumber: String?
    /// When it was created.
    public var createdAt: Timestamp

    /// A location record.
    public init(id: Int64, businessID: Int64, name: String, storeNumber: String?, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.storeNumber = storeNumber
        self.createdAt = createdAt
    }
}
