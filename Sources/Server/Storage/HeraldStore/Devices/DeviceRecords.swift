import HeraldModel

/// Devices: one per business and device key; a push token belongs to at most one device of a business.
package struct DeviceRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, user_id, device_key, platform, token, token_updated_at, user_agent, created_at, updated_at, \
        workspace, key_id, sealed_secret, apns_environment, app_version, os_version, device_model, locale, timezone, \
        sdk_version, notifications_enabled, location_permission, test_status, approval_code, last_seen_at
        """

    static func decode(_ row: SQLRow) -> Device {
        Device(
            id: row.int(0), businessID: row.int(1), userID: row.optionalInt(2), deviceKey: row.text(3),
            platform: PushPlatform(row.text(4)), token: row.optionalText(5), tokenUpdatedAt: row.optionalTimestamp(6),
            userAgent: row.optionalText(7), createdAt: row.timestamp(8), updatedAt: row.timestamp(9),
            install: row.optionalText(10).map { workspace in
                Install(
                    workspace: Install.Workspace(workspace), keyID: row.text(11), sealedSecret: row.blob(12),
                    apnsEnvironment: row.optionalText(13), appVersion: row.optionalText(14),
                    osVersion: row.optionalText(15), deviceModel: row.optionalText(16), locale: row.optionalText(17),
                    timeZone: row.optionalText(18), sdkVersion: row.optionalText(19),
                    notificationsEnabled: row.optionalInt(20).map { $0 != 0 }, locationPermission: row.optionalText(21),
                    testStatus: row.optionalText(22), approvalCode: row.optionalText(23),
                    lastSeenAt: row.optionalTimestamp(24))
            })
    }

    /// The device `key` of `businessID`, locked to the transaction where rows can be locked.
    package func lock(businessID: Int64, key: String) throws -> Device? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM devices WHERE business_id = \(businessID) AND device_key = \(key)
            \(tx.forUpdate)
            """
        ).map(Self.decode)
    }

    /// The device `key` of `businessID`, made for `userID` if it is new (two callers racing get the same row).
    package func findOrInsert(businessID: Int64, key: String, userID: Int64?, platform: PushPlatform, at now: Timestamp)
        throws -> (device: Device, created: Bool)
    {
        if let existing = try lock(businessID: businessID, key: key) { return (existing, false) }
        let inserted = try tx.connection.row(
            """
            INSERT INTO devices (business_id, user_id, device_key, platform, created_at, updated_at)
            VALUES (\(businessID), \(userID), \(key), \(platform.rawValue), \(now), \(now))
            ON CONFLICT (business_id, device_key) DO NOTHING
            RETURNING \(raw: Self.columns)
            """
        ).map(Self.decode)
        if let inserted { return (inserted, true) }
        guard let raced = try lock(businessID: businessID, key: key) else { throw StoreError.notFound("device") }
        return (raced, false)
    }

    /// Writes a device's owner, platform, token and user agent, and its install details. A device only the Punchh
    /// API knows keeps the APNs environment delivery learned for its token (`SQLDeliveryQueue.record`) while the
    /// token stays the same.
    package func save(_ device: Device) throws {
        let install = device.install
        let environment: SQLQuery =
            install.map { "\($0.apnsEnvironment)" } ?? "CASE WHEN token = \(device.token) THEN apns_environment END"
        try tx.connection.execute(
            """
            UPDATE devices SET user_id = \(device.userID), platform = \(device.platform.rawValue), token = \(device.token),
                token_updated_at = \(device.tokenUpdatedAt), user_agent = \(device.userAgent), updated_at = \(device.updatedAt),
                workspace = \(install?.workspace.rawValue), key_id = \(install?.keyID), sealed_secret = \(install?.sealedSecret),
                apns_environment = \(environment), app_version = \(install?.appVersion),
                os_version = \(install?.osVersion), device_model = \(install?.deviceModel), locale = \(install?.locale),
                timezone = \(install?.timeZone), sdk_version = \(install?.sdkVersion),
                notifications_enabled = \(install?.notificationsEnabled), location_permission = \(install?.locationPermission),
                test_status = \(install?.testStatus), approval_code = \(install?.approvalCode),
                last_seen_at = \(install?.lastSeenAt)
            WHERE id = \(device.id)
            """)
    }

    /// Takes `token` from whichever other device of the business holds it (a phone given to someone else, an
    /// app reinstalled under a new device id). Whose a token is, and why, is the domain's rule
    /// (`StoreTransaction.claimPushToken`).
    package func releaseToken(
        _ token: String, platform: PushPlatform, businessID: Int64, except deviceID: Int64,
        at now: Timestamp
    ) throws {
        try tx.connection.execute(
            """
            UPDATE devices SET token = NULL, updated_at = \(now)
            WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND token = \(token)
              AND id <> \(deviceID)
            """)
    }

    /// Clears a device's token.
    package func clearToken(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            "UPDATE devices SET token = NULL, token_updated_at = \(now), updated_at = \(now) WHERE id = \(id)")
    }

    /// The devices signed in as `userID`, by id.
    package func all(userID: Int64) throws -> [Device] {
        try tx.connection.rows("SELECT \(raw: Self.columns) FROM devices WHERE user_id = \(userID) ORDER BY id").map(
            Self.decode)
    }

    /// The devices of `userID` that have a push token: where its notifications go.
    package func withTokens(userID: Int64) throws -> [(id: Int64, platform: PushPlatform)] {
        try tx.connection.rows(
            "SELECT id, platform FROM devices WHERE user_id = \(userID) AND token IS NOT NULL ORDER BY id"
        ).map { ($0.int(0), PushPlatform($0.text(1))) }
    }

    /// The device `id`.
    package func find(id: Int64) throws -> Device? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM devices WHERE id = \(id)").map(Self.decode)
    }
}

extension DeviceRecords {
    /// The install whose credential's key id is `keyID`.
    package func find(keyID: String) throws -> Device? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM devices WHERE key_id = \(keyID)").map(Self.decode)
    }

    /// The device `key` of `businessID`, without locking it.
    package func find(businessID: Int64, key: String) throws -> Device? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM devices WHERE business_id = \(businessID) AND device_key = \(key)"
        ).map(Self.decode)
    }

    /// Notes that a device called at `now` (at most once a minute is written: the audience's "last seen").
    package func markSeen(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            UPDATE devices SET last_seen_at = \(now)
            WHERE id = \(id) AND (last_seen_at IS NULL OR last_seen_at < \(now.adding(.seconds(-60))))
            """)
    }

    /// Replaces a device's segments.
    package func setSegments(id: Int64, _ segments: [String]) throws {
        try tx.connection.execute("DELETE FROM device_segments WHERE device_id = \(id)")
        for segment in Set(segments) {
            try tx.connection.execute(
                "INSERT INTO device_segments (device_id, segment) VALUES (\(id), \(segment))")
        }
    }

    /// A device's segments, sorted.
    package func segments(id: Int64) throws -> [String] {
        try tx.connection.rows("SELECT segment FROM device_segments WHERE device_id = \(id) ORDER BY segment").map {
            $0.text(0)
        }
    }

    /// Deletes a device and everything about it: its segments, events, idempotency keys, the messages addressed to
    /// it and every delivery to it; sessions issued on it forget it.
    package func delete(id: Int64) throws {
        let connection = tx.connection
        try connection.execute("DELETE FROM device_segments WHERE device_id = \(id)")
        try connection.execute("DELETE FROM device_events WHERE device_id = \(id)")
        try connection.execute("DELETE FROM idempotency_keys WHERE device_id = \(id)")
        let deliveries: SQLQuery = """
            device_id = \(id) OR notification_id IN (SELECT id FROM notifications WHERE device_id = \(id))
            """
        try connection.execute(Self.deletingJobs(deliveries, dueTable: tx.dialect.queueTables))
        try connection.execute(
            """
            DELETE FROM notification_milestones
            WHERE notification_id IN (SELECT id FROM notifications WHERE device_id = \(id))
            """)
        try connection.execute(
            """
            DELETE FROM notification_events
            WHERE notification_id IN (SELECT id FROM notifications WHERE device_id = \(id))
            """)
        try connection.execute("DELETE FROM notifications WHERE device_id = \(id)")
        try connection.execute("UPDATE sessions SET device_id = NULL WHERE device_id = \(id)")
        try connection.execute("DELETE FROM devices WHERE id = \(id)")
    }

    /// Deletes the jobs `deliveries` selects, and their due rows where the queue keeps them apart (`delivery_due`).
    /// Those are found by the due table's one index, `(due_at, id)`: a queued job's row is due at its
    /// `next_attempt_at`, and by id alone every device deleted would read the whole table. A due row left behind
    /// (none should be) is dropped by the claim that takes it, which finds no queued job of its id.
    static func deletingJobs(_ deliveries: SQLQuery, dueTable: Bool) -> SQLQuery {
        guard dueTable else { return "DELETE FROM deliveries WHERE \(deliveries)" }
        return """
            WITH job AS (DELETE FROM deliveries WHERE \(deliveries) RETURNING id, next_attempt_at)
            DELETE FROM delivery_due d USING job WHERE d.due_at = job.next_attempt_at AND d.id = job.id
            """
    }

    /// The sandbox install of `businessID` showing `approvalCode`.
    package func find(businessID: Int64, approvalCode: String) throws -> Device? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM devices
            WHERE business_id = \(businessID) AND approval_code = \(approvalCode) AND workspace = 'sandbox'
            """
        ).map(Self.decode)
    }

    /// How many of `businessID`'s sandbox installs are approved test devices seen since `since`.
    package func approvedTestDevices(businessID: Int64, seenSince since: Timestamp) throws -> Int {
        Int(
            try tx.connection.scalar(
                """
                SELECT COUNT(*) FROM devices WHERE business_id = \(businessID) AND workspace = 'sandbox'
                  AND test_status = 'approved' AND COALESCE(last_seen_at, 0) >= \(since)
                """))
    }
}
