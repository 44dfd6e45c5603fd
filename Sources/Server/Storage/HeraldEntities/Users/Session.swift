import HeraldModel

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
