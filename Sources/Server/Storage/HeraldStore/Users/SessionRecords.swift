import HeraldModel

/// Signed-in sessions, found by the hash of their access token.
package struct SessionRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, token_hash, business_id, user_id, device_id, created_at, expires_at, revoked_at"
    private static let withUserColumns =
        Columns.qualified(columns, "s") + ", " + Columns.qualified(UserRecords.columns, "u")
    private static let columnCount = Columns.count(columns)

    static func decode(_ row: SQLRow) -> Session {
        Session(
            id: row.int(0), tokenHash: row.text(1), businessID: row.int(2), userID: row.int(3),
            deviceID: row.optionalInt(4), createdAt: row.timestamp(5), expiresAt: row.timestamp(6),
            revokedAt: row.optionalTimestamp(7))
    }

    /// Stores a new session.
    package func insert(
        tokenHash: String, businessID: Int64, userID: Int64, deviceID: Int64?, expiresAt: Timestamp, at now: Timestamp
    ) throws -> Session {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO sessions (token_hash, business_id, user_id, device_id, created_at, expires_at)
                VALUES (\(tokenHash), \(businessID), \(userID), \(deviceID), \(now), \(expiresAt))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The session whose token hashes to `tokenHash` (active or not).
    package func find(tokenHash: String) throws -> Session? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM sessions WHERE token_hash = \(tokenHash)").map(
            Self.decode)
    }

    /// The session whose token hashes to `tokenHash` with its user, in one read (every signed-in call does this).
    package func findWithUser(tokenHash: String) throws -> (session: Session, user: User)? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.withUserColumns) FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash)
            """
        ).map { (Self.decode($0), UserRecords.decode($0, from: Self.columnCount)) }
    }

    /// Revokes a session (once; a second revocation changes nothing).
    package func revoke(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute("UPDATE sessions SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
    }
}
