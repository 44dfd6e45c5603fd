import HeraldModel

/// The `Store` over any SQL database: SQLite now, PostgreSQL through the same code. Only `SQLDialect`
/// words differ between them; values are always bound.
public final class SQLStore: Store {
    let database: any SQLDatabase
    let makeUUID: @Sendable () -> String

    /// A store over `database`, which must already be migrated (`Migrator.migrate(database, Schema.migrations, …)`).
    public init(database: any SQLDatabase, makeUUID: @escaping @Sendable () -> String = { UUIDString.random() }) {
        self.database = database
        self.makeUUID = makeUUID
    }

    public var localChangeCount: UInt64? { database.committedWriteCount }

    /// A column list with every column prefixed by a table alias (`"id, name"`, `"u"` → `"u.id, u.name"`).
    /// Callers keep the result in a `static let`: it is worked out once, not per query.
    static func qualified(_ columns: String, _ alias: String) -> String {
        columns.split(separator: ",").map { alias + "." + $0.trimmingSpaces() }.joined(separator: ", ")
    }

    /// How many columns a column list names: where the next table's columns start in a joined row. Callers keep
    /// the result in a `static let`, next to the list it counts.
    static func count(_ columns: String) -> Int {
        columns.utf8.reduce(1) { $1 == UInt8(ascii: ",") ? $0 + 1 : $0 }
    }

    static func parseJSON(_ text: String) -> JSON {
        (try? JSON.parse(text)) ?? .object([])
    }

    // MARK: - Businesses

    static let businessColumns = "id, name, client_id, sealed_secret, pos_key_hash, settings, created_at"

    static func business(_ row: SQLRow) -> Business {
        Business(
            id: row.int(0), name: row.text(1), clientID: row.text(2), sealedSecret: row.blob(3),
            posKeyHash: row.text(4),
            settings: BusinessSettings(json: parseJSON(row.text(5))), createdAt: row.timestamp(6))
    }

    public func createBusiness(
        name: String, clientID: String, sealedSecret: [UInt8], posKeyHash: String, at now: Timestamp
    ) throws -> Business {
        try database.write { db in
            let settings = BusinessSettings().json.encodedString
            let row = try db.row(
                """
                INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at)
                VALUES (\(name), \(clientID), \(sealedSecret), \(posKeyHash), \(settings), \(now))
                RETURNING \(raw: Self.businessColumns)
                """)
            return Self.business(row!)
        }
    }

    public func business(id: Int64) throws -> Business? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.businessColumns) FROM businesses WHERE id = \(id)").map(Self.business)
        }
    }

    public func business(clientID: String) throws -> Business? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.businessColumns) FROM businesses WHERE client_id = \(clientID)").map(
                Self.business)
        }
    }

    public func business(posKeyHash: String) throws -> Business? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.businessColumns) FROM businesses WHERE pos_key_hash = \(posKeyHash)").map(
                Self.business)
        }
    }

    public func businesses() throws -> [Business] {
        try database.read { db in
            try db.rows("SELECT \(raw: Self.businessColumns) FROM businesses ORDER BY id").map(Self.business)
        }
    }

    public func updateSettings(businessID: Int64, _ settings: BusinessSettings) throws {
        try database.write { db in
            let changed = try db.execute(
                "UPDATE businesses SET settings = \(settings.json.encodedString) WHERE id = \(businessID)")
            if changed == 0 { throw StoreError.notFound("business") }
        }
    }

    static let credentialColumns = "business_id, platform, settings, sealed_key, broken_reason, updated_at"

    static func credential(_ row: SQLRow) -> PushCredential {
        PushCredential(
            businessID: row.int(0), platform: PushPlatform(row.text(1)),
            settings: [String: String](json: parseJSON(row.text(2))),
            sealedKey: row.blob(3), brokenReason: row.optionalText(4), updatedAt: row.timestamp(5))
    }

    public func setCredential(_ credential: PushCredential) throws {
        try database.write { db in
            guard try db.row("SELECT id FROM businesses WHERE id = \(credential.businessID)") != nil else {
                throw StoreError.notFound("business")
            }
            try db.execute(
                """
                INSERT INTO credentials (business_id, platform, settings, sealed_key, broken_reason, updated_at)
                VALUES (\(credential.businessID), \(credential.platform.rawValue), \(credential.settings.json.encodedString),
                        \(credential.sealedKey), NULL, \(credential.updatedAt))
                ON CONFLICT (business_id, platform) DO UPDATE SET settings = excluded.settings,
                    sealed_key = excluded.sealed_key, broken_reason = NULL, updated_at = excluded.updated_at
                """)
        }
    }

    public func credential(businessID: Int64, platform: PushPlatform) throws -> PushCredential? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.credentialColumns) FROM credentials
                WHERE business_id = \(businessID) AND platform = \(platform.rawValue)
                """
            ).map(Self.credential)
        }
    }

    public func markCredential(businessID: Int64, platform: PushPlatform, brokenReason: String?, observedAt: Timestamp)
        throws -> Bool
    {
        try database.write { db in
            try db.execute(
                """
                UPDATE credentials SET broken_reason = \(brokenReason)
                WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND updated_at <= \(observedAt)
                """) > 0
        }
    }

    public func brokenCredentials() throws -> [PushCredential] {
        try database.read { db in
            try db.rows(
                """
                SELECT \(raw: Self.credentialColumns) FROM credentials WHERE broken_reason IS NOT NULL
                ORDER BY business_id, platform
                """
            ).map(Self.credential)
        }
    }

    public func saveTemplate(businessID: Int64, _ template: NotificationTemplate, at now: Timestamp) throws {
        try database.write { db in
            guard try db.row("SELECT id FROM businesses WHERE id = \(businessID)") != nil else {
                throw StoreError.notFound("business")
            }
            try db.execute(
                """
                INSERT INTO templates (business_id, event, title, subtitle, body, sound, enabled, media_url, media_type, updated_at)
                VALUES (\(businessID), \(template.event.rawValue), \(template.title), \(template.subtitle), \(template.body),
                        \(template.sound), \(template.enabled), \(template.media?.url), \(template.media?.type), \(now))
                ON CONFLICT (business_id, event) DO UPDATE SET title = excluded.title, subtitle = excluded.subtitle,
                    body = excluded.body, sound = excluded.sound, enabled = excluded.enabled,
                    media_url = excluded.media_url, media_type = excluded.media_type, updated_at = excluded.updated_at
                """)
        }
    }

    public func template(businessID: Int64, event: EventName) throws -> NotificationTemplate? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.templateColumns) FROM templates
                WHERE business_id = \(businessID) AND event = \(event.rawValue)
                """
            ).map(Self.template)
        }
    }

    public func templates(businessID: Int64) throws -> [NotificationTemplate] {
        try database.read { db in
            try db.rows("SELECT \(raw: Self.templateColumns) FROM templates WHERE business_id = \(businessID)")
                .map(Self.template)
        }
    }

    static let templateColumns = "event, title, subtitle, body, sound, enabled, media_url, media_type"

    static func template(_ row: SQLRow) -> NotificationTemplate {
        NotificationTemplate(
            event: EventName(row.text(0)), title: row.text(1), subtitle: row.text(2), body: row.text(3),
            sound: row.text(4), enabled: row.bool(5),
            media: row.optionalText(6).map { MediaAttachment(url: $0, type: row.text(7)) })
    }

    static let locationColumns = "id, business_id, name, store_number, created_at"

    static func location(_ row: SQLRow) -> Location {
        Location(
            id: row.int(0), businessID: row.int(1), name: row.text(2), storeNumber: row.optionalText(3),
            createdAt: row.timestamp(4))
    }

    public func createLocation(businessID: Int64, name: String, storeNumber: String?, at now: Timestamp) throws
        -> Location
    {
        try database.write { db in
            guard try db.row("SELECT id FROM businesses WHERE id = \(businessID)") != nil else {
                throw StoreError.notFound("business")
            }
            return Self.location(
                try db.row(
                    """
                    INSERT INTO locations (business_id, name, store_number, created_at)
                    VALUES (\(businessID), \(name), \(storeNumber), \(now)) RETURNING \(raw: Self.locationColumns)
                    """)!)
        }
    }

    public func location(businessID: Int64, id: Int64) throws -> Location? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.locationColumns) FROM locations WHERE id = \(id) AND business_id = \(businessID)"
            )
            .map(Self.location)
        }
    }
}
