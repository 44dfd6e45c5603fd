import HeraldModel

/// Users. Email (and phone, when set) are unique per business: a taken one is `StoreError.conflict` naming it.
public struct UserRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, email, password_hash, first_name, last_name, phone, points, banked_cents, created_at, \
        updated_at, inbox_version, external_id, attributes
        """

    static func decode(_ row: SQLRow, from o: Int = 0) -> User {
        User(
            id: row.int(o), businessID: row.int(o + 1), email: row.optionalText(o + 2), passwordHash: row.text(o + 3),
            firstName: row.text(o + 4), lastName: row.text(o + 5), phone: row.optionalText(o + 6),
            points: row.int(o + 7), bankedCurrency: Money(cents: row.int(o + 8)), inboxVersion: row.int(o + 11),
            externalID: row.optionalText(o + 12), attributes: Columns.json(row.text(o + 13)),
            createdAt: row.timestamp(o + 9), updatedAt: row.timestamp(o + 10))
    }

    /// Creates a user.
    public func insert(_ new: NewUser, at now: Timestamp) throws -> User {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at)
                VALUES (\(new.businessID), \(new.email), \(new.passwordHash), \(new.firstName), \(new.lastName),
                        \(new.phone), \(now), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The user `id` of `businessID` (nil for another business's user).
    public func find(businessID: Int64, id: Int64) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE id = \(id) AND business_id = \(businessID)"
        ).map { Self.decode($0) }
    }

    /// The user `id` of `businessID`, locked to the transaction where the database locks rows: what is read
    /// (points, banked currency) may be written back from it.
    public func lock(businessID: Int64, id: Int64) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE id = \(id) AND business_id = \(businessID) \(tx.forUpdate)"
        ).map { Self.decode($0) }
    }

    /// The user with `email` (lower-cased) in `businessID`.
    public func find(businessID: Int64, email: String) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND email = \(email)"
        ).map { Self.decode($0) }
    }

    /// The user with `phone` in `businessID`.
    public func find(businessID: Int64, phone: String) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND phone = \(phone)"
        ).map { Self.decode($0) }
    }

    /// Writes a user's profile fields (email, password hash, names, phone).
    public func saveProfile(_ user: User) throws {
        try tx.connection.execute(
            """
            UPDATE users SET email = \(user.email), password_hash = \(user.passwordHash), first_name = \(user.firstName),
                last_name = \(user.lastName), phone = \(user.phone), updated_at = \(user.updatedAt)
            WHERE id = \(user.id)
            """)
    }

    /// Adds `points` (negative to take some back, never below zero) and `currency` to a user's balances, in the
    /// database (concurrent changes add up); returns the balances after.
    public func addToBalance(id: Int64, points: Int64, currency: Money = .zero) throws -> (
        points: Int64, banked: Money
    ) {
        let row = try tx.connection.row(
            """
            UPDATE users SET points = CASE WHEN points + \(points) > 0 THEN points + \(points) ELSE 0 END,
                banked_cents = banked_cents + \(currency.cents)
            WHERE id = \(id) RETURNING points, banked_cents
            """)
        guard let row else { throw StoreError.notFound("user") }
        return (row.int(0), Money(cents: row.int(1)))
    }

    /// Counts a change to a user's inbox (validating cached pages and ETags).
    public func bumpInboxVersion(id: Int64) throws {
        try tx.connection.execute("UPDATE users SET inbox_version = inbox_version + 1 WHERE id = \(id)")
    }
}

/// Devices: one per business and device key; a push token belongs to at most one device of a business.
public struct DeviceRecords {
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
    public func lock(businessID: Int64, key: String) throws -> Device? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM devices WHERE business_id = \(businessID) AND device_key = \(key)
            \(tx.forUpdate)
            """
        ).map(Self.decode)
    }

    /// The device `key` of `businessID`, made for `userID` if it is new (two callers racing get the same row).
    public func findOrInsert(businessID: Int64, key: String, userID: Int64?, platform: PushPlatform, at now: Timestamp)
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

    /// Writes a device's owner, platform, token and user agent, and its install details.
    public func save(_ device: Device) throws {
        let install = device.install
        try tx.connection.execute(
            """
            UPDATE devices SET user_id = \(device.userID), platform = \(device.platform.rawValue), token = \(device.token),
                token_updated_at = \(device.tokenUpdatedAt), user_agent = \(device.userAgent), updated_at = \(device.updatedAt),
                workspace = \(install?.workspace.rawValue), key_id = \(install?.keyID), sealed_secret = \(install?.sealedSecret),
                apns_environment = \(install?.apnsEnvironment), app_version = \(install?.appVersion),
                os_version = \(install?.osVersion), device_model = \(install?.deviceModel), locale = \(install?.locale),
                timezone = \(install?.timeZone), sdk_version = \(install?.sdkVersion),
                notifications_enabled = \(install?.notificationsEnabled), location_permission = \(install?.locationPermission),
                test_status = \(install?.testStatus), approval_code = \(install?.approvalCode),
                last_seen_at = \(install?.lastSeenAt)
            WHERE id = \(device.id)
            """)
    }

    /// Takes `token` from whichever other device of the business holds it (a phone given to someone else, an
    /// app reinstalled under a new device id).
    public func releaseToken(
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
    public func clearToken(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            "UPDATE devices SET token = NULL, token_updated_at = \(now), updated_at = \(now) WHERE id = \(id)")
    }

    /// The devices signed in as `userID`, by id.
    public func all(userID: Int64) throws -> [Device] {
        try tx.connection.rows("SELECT \(raw: Self.columns) FROM devices WHERE user_id = \(userID) ORDER BY id").map(
            Self.decode)
    }

    /// The devices of `userID` that have a push token: where its notifications go.
    public func withTokens(userID: Int64) throws -> [(id: Int64, platform: PushPlatform)] {
        try tx.connection.rows(
            "SELECT id, platform FROM devices WHERE user_id = \(userID) AND token IS NOT NULL ORDER BY id"
        ).map { ($0.int(0), PushPlatform($0.text(1))) }
    }

    /// The device `id`.
    public func find(id: Int64) throws -> Device? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM devices WHERE id = \(id)").map(Self.decode)
    }
}

extension DeviceRecords {
    /// The install whose credential's key id is `keyID`.
    public func find(keyID: String) throws -> Device? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM devices WHERE key_id = \(keyID)").map(Self.decode)
    }

    /// The device `key` of `businessID`, without locking it.
    public func find(businessID: Int64, key: String) throws -> Device? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM devices WHERE business_id = \(businessID) AND device_key = \(key)"
        ).map(Self.decode)
    }

    /// Notes that a device called at `now` (at most once a minute is written: the audience's "last seen").
    public func markSeen(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            UPDATE devices SET last_seen_at = \(now)
            WHERE id = \(id) AND (last_seen_at IS NULL OR last_seen_at < \(now.adding(.seconds(-60))))
            """)
    }

    /// Replaces a device's segments.
    public func setSegments(id: Int64, _ segments: [String]) throws {
        try tx.connection.execute("DELETE FROM device_segments WHERE device_id = \(id)")
        for segment in Set(segments) {
            try tx.connection.execute(
                "INSERT INTO device_segments (device_id, segment) VALUES (\(id), \(segment))")
        }
    }

    /// A device's segments, sorted.
    public func segments(id: Int64) throws -> [String] {
        try tx.connection.rows("SELECT segment FROM device_segments WHERE device_id = \(id) ORDER BY segment").map {
            $0.text(0)
        }
    }

    /// Deletes a device and everything about it: its segments, events, idempotency keys, the messages addressed to
    /// it and every delivery to it; sessions issued on it forget it.
    public func delete(id: Int64) throws {
        let connection = tx.connection
        try connection.execute("DELETE FROM device_segments WHERE device_id = \(id)")
        try connection.execute("DELETE FROM device_events WHERE device_id = \(id)")
        try connection.execute("DELETE FROM idempotency_keys WHERE device_id = \(id)")
        try connection.execute(
            """
            DELETE FROM deliveries WHERE device_id = \(id)
               OR notification_id IN (SELECT id FROM notifications WHERE device_id = \(id))
            """)
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

    /// The sandbox install of `businessID` showing `approvalCode`.
    public func find(businessID: Int64, approvalCode: String) throws -> Device? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM devices
            WHERE business_id = \(businessID) AND approval_code = \(approvalCode) AND workspace = 'sandbox'
            """
        ).map(Self.decode)
    }

    /// How many of `businessID`'s sandbox installs are approved test devices seen since `since`.
    public func approvedTestDevices(businessID: Int64, seenSince since: Timestamp) throws -> Int {
        Int(
            try tx.connection.scalar(
                """
                SELECT COUNT(*) FROM devices WHERE business_id = \(businessID) AND workspace = 'sandbox'
                  AND test_status = 'approved' AND COALESCE(last_seen_at, 0) >= \(since)
                """))
    }
}

/// Signed-in sessions, found by the hash of their access token.
public struct SessionRecords {
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
    public func insert(
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
    public func find(tokenHash: String) throws -> Session? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM sessions WHERE token_hash = \(tokenHash)").map(
            Self.decode)
    }

    /// The session whose token hashes to `tokenHash` with its user, in one read (every signed-in call does this).
    public func findWithUser(tokenHash: String) throws -> (session: Session, user: User)? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.withUserColumns) FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash)
            """
        ).map { (Self.decode($0), UserRecords.decode($0, from: Self.columnCount)) }
    }

    /// Revokes a session (once; a second revocation changes nothing).
    public func revoke(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute("UPDATE sessions SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
    }
}
