import HeraldModel

/// A signed-in session: an access token (stored hashed) bound to a user and the device it was issued on.
package struct Session: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// SHA-256 (hex) of the access token.
    package var tokenHash: String
    /// Owning business.
    package var businessID: Int64
    /// The signed-in user.
    package var userID: Int64
    /// The device it was issued on, if known.
    package var deviceID: Int64?
    /// Issued at.
    package var createdAt: Timestamp
    /// Unusable after this.
    package var expiresAt: Timestamp
    /// Set on logout.
    package var revokedAt: Timestamp?

    /// A session record.
    package init(
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
