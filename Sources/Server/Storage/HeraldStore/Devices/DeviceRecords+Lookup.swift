import HeraldModel

extension DeviceRecords {
    /// The devices of `businessID` matching `lookup`, by id, with their owner's email.
    ///
    /// A token prefix is compared with `substr` (not `LIKE`, whose `_` and `%` a token could hold, nor a range, which
    /// a PostgreSQL collation other than C would order differently): it reads the business's devices, a support
    /// tool's query, paged.
    package func lookup(businessID: Int64, _ lookup: DeviceLookup, limit: Int, offset: Int) throws -> [(
        device: Device, email: String?
    )] {
        var query: SQLQuery = """
            SELECT \(raw: Columns.qualified(Self.columns, "d")), u.email
            FROM devices d LEFT JOIN users u ON u.id = d.user_id
            WHERE d.business_id = \(businessID)
            """
        if let userID = lookup.userID { query += " AND d.user_id = \(userID)" }
        if let email = lookup.email {
            query += " AND d.user_id IN (SELECT id FROM users WHERE business_id = \(businessID) AND email = \(email))"
        }
        if let installID = lookup.installID { query += " AND d.device_key = \(installID)" }
        if let prefix = lookup.tokenPrefix {
            query += " AND substr(d.token, 1, \(raw: String(prefix.utf8.count))) = \(prefix)"
        }
        query += " ORDER BY d.id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))"
        let count = Columns.count(Self.columns)
        return try tx.connection.rows(query).map { row in
            (Self.decode(row), row.optionalText(count))
        }
    }
}

extension DeliveryRecords {
    /// The newest `limit` jobs of one device, newest first.
    package func recent(deviceID: Int64, limit: Int) throws -> [Delivery] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM deliveries WHERE device_id = \(deviceID)
            ORDER BY id DESC LIMIT \(max(0, limit))
            """
        ).map(Self.decode)
    }
}

extension BusinessRecords {
    /// A page of businesses, by id.
    package func all(limit: Int, offset: Int) throws -> [Business] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM businesses ORDER BY id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """
        ).map { Self.decode($0) }
    }
}
