import HeraldModel

/// One transaction (or read) on the store: its rows, grouped by concern. Each group is a thin view over the
/// same connection, made on use: `tx.users.find(…)`, `tx.inbox.insert(…)`.
package final class StoreTransaction {
    let connection: any SQLConnection
    /// How the database spells what engines disagree on.
    package let dialect: SQLDialect
    let makeUUID: @Sendable () -> String
    /// Delivery jobs written so far (the engine is woken for them after the commit).
    var deliveriesEnqueued = 0

    init(connection: any SQLConnection, dialect: SQLDialect, makeUUID: @escaping @Sendable () -> String) {
        self.connection = connection
        self.dialect = dialect
        self.makeUUID = makeUUID
    }

    /// Businesses and their settings.
    package var businesses: BusinessRecords { BusinessRecords(self) }
    /// Push credentials.
    package var credentials: CredentialRecords { CredentialRecords(self) }
    /// The provider tokens the credentials send with, shared by the nodes.
    package var providerTokens: ProviderTokenRecords { ProviderTokenRecords(self) }
    /// The identity keys businesses' backends sign external ids with.
    package var identityKeys: IdentityKeyRecords { IdentityKeyRecords(self) }
    /// FCM's send quota per Firebase project, leased by the nodes a second at a time.
    package var fcmQuotas: FCMQuotaRecords { FCMQuotaRecords(self) }
    /// Each credential's congestion window as a node last held it.
    package var credentialWindows: CredentialWindowRecords { CredentialWindowRecords(self) }
    /// Templates businesses saved.
    package var templates: TemplateRecords { TemplateRecords(self) }
    /// Locations.
    package var locations: LocationRecords { LocationRecords(self) }
    /// Users and their loyalty balances.
    package var users: UserRecords { UserRecords(self) }
    /// Devices and their push tokens.
    package var devices: DeviceRecords { DeviceRecords(self) }
    /// Signed-in sessions.
    package var sessions: SessionRecords { SessionRecords(self) }
    /// The codes mailed to prove imported customers' emails, and how often each was tried.
    package var emailCodes: EmailCodeRecords { EmailCodeRecords(self) }
    /// Inbox entries and what apps report about them.
    package var inbox: InboxRecords { InboxRecords(self) }
    /// Delivery jobs, as written with their entries and listed for admins (the engine uses `DeliveryQueue`).
    package var deliveries: DeliveryRecords { DeliveryRecords(self) }
    /// Offers and the rewards granted from them.
    package var offers: OfferRecords { OfferRecords(self) }
    /// Check-ins.
    package var checkins: CheckinRecords { CheckinRecords(self) }
    /// Redemptions.
    package var redemptions: RedemptionRecords { RedemptionRecords(self) }
    /// Gift cards.
    package var giftCards: GiftCardRecords { GiftCardRecords(self) }
    /// Surveys and the ones sent to users.
    package var surveys: SurveyRecords { SurveyRecords(self) }
    /// Campaigns and their counters.
    package var campaigns: CampaignRecords { CampaignRecords(self) }
    /// Geofences.
    package var geofences: GeofenceRecords { GeofenceRecords(self) }
    /// What devices report, and the answers kept for their idempotency keys.
    package var deviceEvents: DeviceEventRecords { DeviceEventRecords(self) }
    /// Segments: named filters of devices.
    package var segments: SegmentRecords { SegmentRecords(self) }
    /// The devices an audience reaches, selected in the database.
    package var audiences: AudienceRecords { AudienceRecords(self) }

    /// `FOR UPDATE` where rows can be locked (PostgreSQL), nothing where the writer is alone (SQLite).
    var forUpdate: SQLQuery { SQLQuery(stringLiteral: dialect.forUpdate) }

    /// The rows of `table` (their `columns`) where `condition` holds and `column` is one of `values`: a batch's
    /// look-up by a unique key (`condition` and `column` naming all of it).
    ///
    /// On PostgreSQL each value is looked up on its own (a `LATERAL` join, kept from being flattened into a hash join
    /// by `OFFSET 0`), which the unique index answers with one row whatever the statistics say: as a plain `IN` list, a table an import was filling faster than autovacuum
    /// analyzed it was planned as a scan of the business's every row, each batch (measured: 130-200 ms a look-up
    /// at 20,000 devices, growing with them — an import of 12 % of SQLite's rate).
    func rows<Value: SQLBindable>(
        _ columns: String, of table: String, where condition: SQLQuery, _ column: String, in values: [Value]
    ) -> SQLQuery {
        guard dialect.name == SQLDialect.postgres.name else {
            return """
                SELECT \(raw: columns) FROM \(raw: table) WHERE \(condition) AND \(raw: column) IN (\(list: values))
                """
        }
        return """
            SELECT t.* FROM (
                SELECT DISTINCT unnest(\(array: values)::\(raw: Value.self == Int64.self ? "bigint" : "text")[]) AS value
            ) k
            JOIN LATERAL (
                SELECT \(raw: columns) FROM \(raw: table) WHERE \(condition) AND \(raw: column) = k.value OFFSET 0
            ) t ON TRUE
            """
    }
}

/// Column lists: each record group keeps its own in a `static let`, worked out once.
enum Columns {
    /// A column list with every column prefixed by a table alias (`"id, name"`, `"u"` → `"u.id, u.name"`).
    static func qualified(_ columns: String, _ alias: String) -> String {
        columns.split(separator: ",").map { alias + "." + trimmed($0) }.joined(separator: ", ")
    }

    /// How many columns a list names: where the next table's columns start in a joined row.
    static func count(_ columns: String) -> Int {
        columns.utf8.reduce(1) { $1 == UInt8(ascii: ",") ? $0 + 1 : $0 }
    }

    /// A JSON column's value, an empty object when it is not JSON.
    static func json(_ text: String) -> JSON { (try? JSON.parse(text)) ?? .object([]) }

    private static func trimmed(_ name: Substring) -> String {
        var slice = name
        while slice.first?.isWhitespace == true { slice = slice.dropFirst() }
        while slice.last?.isWhitespace == true { slice = slice.dropLast() }
        return String(slice)
    }
}
