import HeraldModel

extension DeviceRecords {
    /// The devices of `businessID` with these keys.
    public func find(businessID: Int64, keys: [String]) throws -> [Device] {
        guard !keys.isEmpty else { return [] }
        return try tx.connection.rows(
            "SELECT \(raw: Self.columns) FROM devices WHERE business_id = \(businessID) AND device_key IN (\(list: keys))"
        ).map(Self.decode)
    }

    /// The devices of `businessID` holding any of these tokens of `platform`.
    public func find(businessID: Int64, platform: PushPlatform, tokens: [String]) throws -> [Device] {
        guard !tokens.isEmpty else { return [] }
        return try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM devices
            WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND token IN (\(list: tokens))
            """
        ).map(Self.decode)
    }

    /// Creates a device known from an import (no install details: the SDK adds them if it registers it).
    public func insertImported(
        businessID: Int64, key: String, userID: Int64?, platform: PushPlatform, token: String, at now: Timestamp
    ) throws -> Device {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO devices (business_id, user_id, device_key, platform, token, token_updated_at, created_at,
                    updated_at)
                VALUES (\(businessID), \(userID), \(key), \(platform.rawValue), \(token), \(now), \(now), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }
}
