import HeraldModel

/// Businesses: `client_id` and `pos_key_hash` are unique.
package struct BusinessRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, name, client_id, sealed_secret, pos_key_hash, settings, created_at"

    static func decode(_ row: SQLRow, from o: Int = 0) -> Business {
        Business(
            id: row.int(o), name: row.text(o + 1), clientID: row.text(o + 2), sealedSecret: row.blob(o + 3),
            posKeyHash: row.text(o + 4), settings: BusinessSettings(json: Columns.json(row.text(o + 5))),
            createdAt: row.timestamp(o + 6))
    }

    /// Creates a business with default settings.
    package func insert(name: String, clientID: String, sealedSecret: [UInt8], posKeyHash: String, at now: Timestamp)
        throws -> Business
    {
        let settings = BusinessSettings().json.encodedString
        return Self.decode(
            try tx.connection.row(
                """
                INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at)
                VALUES (\(name), \(clientID), \(sealedSecret), \(posKeyHash), \(settings), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The business with `id`.
    package func find(id: Int64) throws -> Business? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM businesses WHERE id = \(id)").map { Self.decode($0) }
    }

    /// The business whose app signs as `clientID`.
    package func find(clientID: String) throws -> Business? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM businesses WHERE client_id = \(clientID)").map {
            Self.decode($0)
        }
    }

    /// The business whose POS key hashes to `posKeyHash`.
    package func find(posKeyHash: String) throws -> Business? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM businesses WHERE pos_key_hash = \(posKeyHash)").map {
            Self.decode($0)
        }
    }

    /// Every business, by id.
    package func all() throws -> [Business] {
        try tx.connection.rows("SELECT \(raw: Self.columns) FROM businesses ORDER BY id").map { Self.decode($0) }
    }

    /// Replaces a business's settings; false when there is no such business.
    @discardableResult
    package func updateSettings(id: Int64, _ settings: BusinessSettings) throws -> Bool {
        try tx.connection.execute(
            "UPDATE businesses SET settings = \(settings.json.encodedString) WHERE id = \(id)") > 0
    }
}

/// Push credentials, one per business and platform.
package struct CredentialRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "business_id, platform, settings, sealed_key, broken_reason, updated_at"

    static func decode(_ row: SQLRow) -> PushCredential {
        PushCredential(
            businessID: row.int(0), platform: PushPlatform(row.text(1)),
            settings: [String: String](json: Columns.json(row.text(2))), sealedKey: row.blob(3),
            brokenReason: row.optionalText(4), updatedAt: row.timestamp(5))
    }

    /// Sets (replaces) a business's credential for `credential.platform`, healthy.
    package func save(_ credential: PushCredential) throws {
        try tx.connection.execute(
            """
            INSERT INTO credentials (business_id, platform, settings, sealed_key, broken_reason, updated_at)
            VALUES (\(credential.businessID), \(credential.platform.rawValue), \(credential.settings.json.encodedString),
                    \(credential.sealedKey), NULL, \(credential.updatedAt))
            ON CONFLICT (business_id, platform) DO UPDATE SET settings = excluded.settings,
                sealed_key = excluded.sealed_key, broken_reason = NULL, updated_at = excluded.updated_at
            """)
    }

    /// The credential of `businessID` for `platform`.
    package func find(businessID: Int64, platform: PushPlatform) throws -> PushCredential? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM credentials
            WHERE business_id = \(businessID) AND platform = \(platform.rawValue)
            """
        ).map(Self.decode)
    }

    /// The Firebase project `businessID`'s FCM credential sends as (nil: no credential, or none named).
    package func fcmProjectID(businessID: Int64) throws -> String? {
        guard let projectID = try find(businessID: businessID, platform: .fcm)?.settings["project_id"],
            !projectID.isEmpty
        else { return nil }
        return projectID
    }
}

/// The templates businesses saved (events without one use the default).
package struct TemplateRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "event, title, subtitle, body, sound, enabled, media_url, media_type"

    static func decode(_ row: SQLRow) -> NotificationTemplate {
        NotificationTemplate(
            event: EventName(row.text(0)), title: row.text(1), subtitle: row.text(2), body: row.text(3),
            sound: row.text(4), enabled: row.bool(5),
            media: row.optionalText(6).map { MediaAttachment(url: $0, type: row.text(7)) })
    }

    /// Saves a template, replacing the business's earlier one for that event.
    package func save(businessID: Int64, _ template: NotificationTemplate, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            INSERT INTO templates (business_id, event, title, subtitle, body, sound, enabled, media_url, media_type, updated_at)
            VALUES (\(businessID), \(template.event.rawValue), \(template.title), \(template.subtitle), \(template.body),
                    \(template.sound), \(template.enabled), \(template.media?.url), \(template.media?.type), \(now))
            ON CONFLICT (business_id, event) DO UPDATE SET title = excluded.title, subtitle = excluded.subtitle,
                body = excluded.body, sound = excluded.sound, enabled = excluded.enabled,
                media_url = excluded.media_url, media_type = excluded.media_type, updated_at = excluded.updated_at
            """)
    }

    /// The business's own template for `event`, if it saved one.
    package func find(businessID: Int64, event: EventName) throws -> NotificationTemplate? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM templates WHERE business_id = \(businessID) AND event = \(event.rawValue)
            """
        ).map(Self.decode)
    }

    /// Every template the business saved.
    package func all(businessID: Int64) throws -> [NotificationTemplate] {
        try tx.connection.rows("SELECT \(raw: Self.columns) FROM templates WHERE business_id = \(businessID)").map(
            Self.decode)
    }
}

/// A business's locations.
package struct LocationRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, business_id, name, store_number, created_at"

    static func decode(_ row: SQLRow) -> Location {
        Location(
            id: row.int(0), businessID: row.int(1), name: row.text(2), storeNumber: row.optionalText(3),
            createdAt: row.timestamp(4))
    }

    /// Creates a location.
    package func insert(businessID: Int64, name: String, storeNumber: String?, at now: Timestamp) throws -> Location {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO locations (business_id, name, store_number, created_at)
                VALUES (\(businessID), \(name), \(storeNumber), \(now)) RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The location `id` of `businessID` (nil for another business's).
    package func find(businessID: Int64, id: Int64) throws -> Location? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM locations WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// Places beacon `minor` of `businessID` at `locationID` (a minor is one beacon of the business: a conflict on
    /// `beacon_minors` when another location has it).
    package func addBeacon(businessID: Int64, minor: Int64, locationID: Int64) throws {
        try tx.connection.execute(
            """
            INSERT INTO location_beacons (business_id, minor, location_id)
            VALUES (\(businessID), \(minor), \(locationID))
            """)
    }

    /// The beacon minors of `locationID`, in order.
    package func beacons(locationID: Int64) throws -> [Int64] {
        try tx.connection.rows(
            "SELECT minor FROM location_beacons WHERE location_id = \(locationID) ORDER BY minor"
        ).map { $0.int(0) }
    }

    /// The location of `businessID` where beacon `minor` is, if any.
    package func find(businessID: Int64, beaconMinor minor: Int64) throws -> Location? {
        try tx.connection.row(
            """
            SELECT \(raw: Columns.qualified(Self.columns, "l")) FROM location_beacons b
            JOIN locations l ON l.id = b.location_id WHERE b.business_id = \(businessID) AND b.minor = \(minor)
            """
        ).map(Self.decode)
    }
}
