import HeraldModel

/// The identity keys of the businesses, read by every node at each check: a key retired on one node vouches for
/// nobody on any from the commit on.
package struct IdentityKeyRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    private static let columns = "business_id, kid, sealed_key, created_at, retired_at"

    /// Every key stored for `businessID`, oldest first.
    package func all(businessID: Int64) throws -> [StoredIdentityKey] {
        try tx.connection.rows(
            "SELECT \(raw: Self.columns) FROM identity_keys WHERE business_id = \(businessID) ORDER BY created_at, kid"
        ).map(Self.decode)
    }

    /// The key `kid` of `businessID`, if one is stored.
    package func find(businessID: Int64, kid: String) throws -> StoredIdentityKey? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM identity_keys WHERE business_id = \(businessID) AND kid = \(kid)"
        ).map(Self.decode)
    }

    /// Stores `key`; a conflict (on `kid`) when the business has one of that name.
    package func insert(_ key: StoredIdentityKey) throws {
        try tx.connection.execute(
            """
            INSERT INTO identity_keys (business_id, kid, sealed_key, created_at, retired_at)
            VALUES (\(key.businessID), \(key.kid), \(key.sealedKey), \(key.createdAt), \(key.retiredAt))
            """)
    }

    /// Retires the key `kid` of `businessID` at `now`, unless it is retired already (its first retirement stands).
    package func retire(businessID: Int64, kid: String, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            UPDATE identity_keys SET retired_at = \(now)
            WHERE business_id = \(businessID) AND kid = \(kid) AND retired_at IS NULL
            """)
    }

    private static func decode(_ row: SQLRow) -> StoredIdentityKey {
        StoredIdentityKey(
            businessID: row.int(0), kid: row.text(1), sealedKey: row.values[2] == .null ? nil : row.blob(2),
            createdAt: row.timestamp(3), retiredAt: row.optionalTimestamp(4))
    }
}
