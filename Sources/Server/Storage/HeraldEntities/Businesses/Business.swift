import HeraldModel

/// A business running an app on Herald: the unit everything else belongs to.
public struct Business: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Display name.
    package var name: String
    /// The public client id the app sends as `"client"`.
    package var clientID: String
    /// The signing secret, sealed (AES-256-GCM) by the server; the store never sees it in clear.
    package var sealedSecret: [UInt8]
    /// SHA-256 (hex) of the POS key; the key itself is shown once, at creation.
    package var posKeyHash: String
    /// Business rules (point conversion, reminders).
    package var settings: BusinessSettings
    /// When it was created.
    package var createdAt: Timestamp

    /// A business record.
    package init(
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
package struct BusinessSettings: Sendable, Equatable {
    /// Points at which a user's balance converts (0 disables conversion).
    package var conversionThreshold: Int64
    /// What a conversion grants: an offer (`reward`) or banked currency (`currency`).
    package var conversionKind: String
    /// Currency granted per conversion, when `conversionKind` is `currency`.
    package var conversionCurrencyAmount: Money
    /// Offer granted per conversion, when `conversionKind` is `reward`.
    package var conversionOfferID: Int64?
    /// How long before an offer's expiry its reminder is sent, in seconds (0 disables reminders).
    package var offerReminderLeadSeconds: Int64
    /// An offer granted to every new user at sign-up, if set.
    package var welcomeOfferID: Int64?
    /// The membership levels, lowest first, the first from 0 points (what Transaction Details names).
    package var membershipLevels: [MembershipLevel]
    /// Whether the business vouches for the emails of the customers it imports: then a sign-up with an imported
    /// email claims that record at once; otherwise only with the one-time code mailed to the address.
    package var importTrusted = false

    /// Defaults: no conversion, reminders a day before expiry, no welcome offer, levels Member, Silver (500
    /// points) and Gold (2000).
    package init(
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
package struct MembershipLevel: Sendable, Equatable {
    /// What the app shows (`Gold`).
    package var name: String
    /// The balance it starts at.
    package var fromPoints: Int64

    /// A level.
    package init(name: String, fromPoints: Int64) {
        self.name = name
        self.fromPoints = fromPoints
    }

    /// Member, Silver from 500 points, Gold from 2000.
    package static let defaults = [
        MembershipLevel(name: "Member", fromPoints: 0), MembershipLevel(name: "Silver", fromPoints: 500),
        MembershipLevel(name: "Gold", fromPoints: 2000),
    ]
}

/// A store location (where check-ins and redemptions happen).
package struct Location: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Display name ("Brooklyn Location").
    package var name: String
    /// The business's own number for the store.
    package var storeNumber: String?
    /// When it was created.
    package var createdAt: Timestamp

    /// A location record.
    package init(id: Int64, businessID: Int64, name: String, storeNumber: String?, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.name = name
        self.storeNumber = storeNumber
        self.createdAt = createdAt
    }
}
