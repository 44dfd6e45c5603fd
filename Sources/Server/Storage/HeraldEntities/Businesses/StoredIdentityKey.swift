import HeraldModel

/// An identity key of a business as stored: sealed, and when it stopped vouching.
package struct StoredIdentityKey: Sendable, Equatable {
    /// Its business.
    package var businessID: Int64
    /// Its name, which tokens signed with it carry (`<kid>.<hex>`).
    package var kid: String
    /// The sealed key text; nil for the original key, which is derived rather than stored.
    package var sealedKey: [UInt8]?
    /// When it was made.
    package var createdAt: Timestamp
    /// When it was retired: from then on it vouches for nobody.
    package var retiredAt: Timestamp?

    /// A stored key.
    package init(businessID: Int64, kid: String, sealedKey: [UInt8]?, createdAt: Timestamp, retiredAt: Timestamp?) {
        self.businessID = businessID
        self.kid = kid
        self.sealedKey = sealedKey
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}
