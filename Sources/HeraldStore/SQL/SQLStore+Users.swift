import HeraldModel

extension SQLStore {
    static let userColumns =
        "id, business_id, email, password_hash, first_name, last_name, phone, points, banked_currency, created_at, updated_at, inbox_version"

    static func user(_ row: SQLRow) -> User { user(row, from: 0) }

    static func user(_ row: SQLRow, from o: Int) -> User {
        User(
            id: row.int(o), businessID: row.int(o + 1), email: row.text(o + 2), passwordHash: row.text(o + 3),
            firstName: row.text(o + 4), lastName: row.text(o + 5), phone: row.optionalText(o + 6),
            points: row.int(o + 7), bankedCurrency: row.double(o + 8), inboxVersion: row.int(o + 11),
            createdAt: row.timestamp(o + 9), updatedAt: row.timestamp(o + 10))
    }

    private func checkUnique(_ db: any SQLConnection, businessID: Int64, email: String?, phone: String?, except: Int64)
        throws
    {
        if let email,
            try db.row(
                "SELECT id FROM users WHERE business_id = \(businessID) AND email = \(email) AND id <> \(except)")
                != nil
        {
            throw StoreError(.conflict, field: "email", "email already taken")
        }
        if let phone,
            try db.row(
                "SELECT id FROM users WHERE business_id = \(businessID) AND phone = \(phone) AND id <> \(except)")
                != nil
        {
            throw StoreError(.conflict, field: "phone", "phone already taken")
        }
    }

    public func createUser(_ new: NewUser, at now: Timestamp) throws -> User {
        try database.write { db in
            try checkUnique(db, businessID: new.businessID, email: new.email, phone: new.phone, except: 0)
            return Self.user(
                try db.row(
                    """
                    INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at)
                    VALUES (\(new.businessID), \(new.email), \(new.passwordHash), \(new.firstName), \(new.lastName), \(new.phone),
                            \(now), \(now))
                    RETURNING \(raw: Self.userColumns)
                    """)!)
        }
    }

    public func user(businessID: Int64, id: Int64) throws -> User? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.userColumns) FROM users WHERE id = \(id) AND business_id = \(businessID)")
                .map(Self.user)
        }
    }

    public func user(businessID: Int64, email: String) throws -> User? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.userColumns) FROM users WHERE business_id = \(businessID) AND email = \(email)"
            )
            .map(Self.user)
        }
    }

    public func user(businessID: Int64, phone: String) throws -> User? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.userColumns) FROM users WHERE business_id = \(businessID) AND phone = \(phone)"
            )
            .map(Self.user)
        }
    }

    public func updateUser(businessID: Int64, id: Int64, _ changes: UserChanges, at now: Timestamp) throws -> User {
        try database.write { db in
            guard
                var user = try db.row(
                    "SELECT \(raw: Self.userColumns) FROM users WHERE id = \(id) AND business_id = \(businessID)"
                )
                .map(Self.user)
            else { throw StoreError.notFound("user") }
            try checkUnique(db, businessID: businessID, email: changes.email, phone: changes.phone ?? nil, except: id)
            user.apply(changes, at: now)
            try db.execute(
                """
                UPDATE users SET email = \(user.email), password_hash = \(user.passwordHash), first_name = \(user.firstName),
                    last_name = \(user.lastName), phone = \(user.phone), updated_at = \(now)
                WHERE id = \(id)
                """)
            return user
        }
    }

    static let deviceColumns =
        "id, business_id, user_id, device_key, platform, token, token_updated_at, user_agent, created_at, updated_at"

    static func device(_ row: SQLRow) -> Device {
        Device(
            id: row.int(0), businessID: row.int(1), userID: row.int(2), deviceKey: row.text(3),
            platform: PushPlatform(row.text(4)), token: row.optionalText(5), tokenUpdatedAt: row.optionalTimestamp(6),
            userAgent: row.optionalText(7), createdAt: row.timestamp(8), updatedAt: row.timestamp(9))
    }

    public func registerDevice(businessID: Int64, userID: Int64, _ registration: DeviceRegistration, at now: Timestamp)
        throws -> Device
    {
        try database.write { db in
            guard try db.row("SELECT id FROM users WHERE id = \(userID) AND business_id = \(businessID)") != nil else {
                throw StoreError.notFound("user")
            }
            var device: Device
            if let existing = try db.row(
                """
                SELECT \(raw: Self.deviceColumns) FROM devices
                WHERE business_id = \(businessID) AND device_key = \(registration.deviceKey)
                """
            ).map(Self.device) {
                device = existing
            } else {
                device = Self.device(
                    try db.row(
                        """
                        INSERT INTO devices (business_id, user_id, device_key, platform, created_at, updated_at)
                        VALUES (\(businessID), \(userID), \(registration.deviceKey), \(registration.platform.rawValue), \(now), \(now))
                        RETURNING \(raw: Self.deviceColumns)
                        """)!)
            }
            if let token = device.register(registration, by: userID, at: now) {
                try db.execute(
                    """
                    UPDATE devices SET token = NULL, updated_at = \(now)
                    WHERE business_id = \(businessID) AND platform = \(device.platform.rawValue)
                      AND token = \(token) AND id <> \(device.id)
                    """)
            }
            try db.execute(
                """
                UPDATE devices SET user_id = \(device.userID), platform = \(device.platform.rawValue), token = \(device.token),
                    token_updated_at = \(device.tokenUpdatedAt), user_agent = \(device.userAgent), updated_at = \(now)
                WHERE id = \(device.id)
                """)
            return device
        }
    }

    public func clearToken(deviceID: Int64, at now: Timestamp) throws {
        try database.write { db in
            try db.execute(
                """
                UPDATE devices SET token = NULL, token_updated_at = \(now), updated_at = \(now) WHERE id = \(deviceID)
                """)
        }
    }

    public func devices(userID: Int64) throws -> [Device] {
        try database.read { db in
            try db.rows("SELECT \(raw: Self.deviceColumns) FROM devices WHERE user_id = \(userID) ORDER BY id").map(
                Self.device)
        }
    }

    public func device(id: Int64) throws -> Device? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.deviceColumns) FROM devices WHERE id = \(id)").map(Self.device)
        }
    }

    static let sessionColumns = "id, token_hash, business_id, user_id, device_id, created_at, expires_at, revoked_at"

    static func session(_ row: SQLRow) -> Session {
        Session(
            id: row.int(0), tokenHash: row.text(1), businessID: row.int(2), userID: row.int(3),
            deviceID: row.optionalInt(4),
            createdAt: row.timestamp(5), expiresAt: row.timestamp(6), revokedAt: row.optionalTimestamp(7))
    }

    public func createSession(
        tokenHash: String, businessID: Int64, userID: Int64, deviceID: Int64?, expiresAt: Timestamp, at now: Timestamp
    ) throws -> Session {
        try database.write { db in
            Self.session(
                try db.row(
                    """
                    INSERT INTO sessions (token_hash, business_id, user_id, device_id, created_at, expires_at)
                    VALUES (\(tokenHash), \(businessID), \(userID), \(deviceID), \(now), \(expiresAt))
                    RETURNING \(raw: Self.sessionColumns)
                    """)!)
        }
    }

    public func session(tokenHash: String) throws -> Session? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.sessionColumns) FROM sessions WHERE token_hash = \(tokenHash)").map(
                Self.session)
        }
    }

    private static let sessionAndUserColumns = qualified(sessionColumns, "s") + ", " + qualified(userColumns, "u")
    private static let sessionColumnCount = count(sessionColumns)

    public func sessionWithUser(tokenHash: String) throws -> (session: Session, user: User)? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.sessionAndUserColumns) FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.token_hash = \(tokenHash)
                """
            ).map { row in
                (Self.session(row), Self.user(row, from: Self.sessionColumnCount))
            }
        }
    }

    public func revokeSession(id: Int64, at now: Timestamp) throws {
        try database.write { db in
            try db.execute("UPDATE sessions SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
        }
    }
}
