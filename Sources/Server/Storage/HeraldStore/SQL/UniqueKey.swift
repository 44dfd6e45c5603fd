/// A unique constraint or index of `Schema`, and the field its violation is reported on (`StoreError.field`).
///
/// The database, not a look-up before the insert, is what keeps values unique (two nodes may insert at once), so
/// both drivers turn a violation into `StoreError(.conflict, field:)` through this table: PostgreSQL names the
/// constraint or index (`UniqueKey.field(constraint:)`), SQLite names its table and columns
/// (`UniqueKey.field(table:columns:)`).
///
/// | table | columns | PostgreSQL name | field |
/// | --- | --- | --- | --- |
/// | businesses | client_id | businesses_client_id_key | client |
/// | businesses | pos_key_hash | businesses_pos_key_hash_key | pos_key_hash |
/// | credentials | business_id, platform | credentials_pkey | platform |
/// | templates | business_id, event | templates_pkey | event |
/// | users | business_id, email | users_business_id_email_key | email |
/// | users | business_id, phone (where set) | users_phone | phone |
/// | devices | business_id, device_key | devices_business_id_device_key_key | device_key |
/// | devices | business_id, platform, token (where set) | devices_token | token |
/// | sessions | token_hash | sessions_token_hash_key | token_hash |
/// | rewards | business_id, redemption_code (where set) | rewards_code | redemption_code |
/// | checkins | business_id, transaction_id | checkins_business_id_transaction_id_key | transaction_id |
/// | gift_cards | business_id, uuid | gift_cards_business_id_uuid_key | uuid |
/// | schema_migrations | version | schema_migrations_pkey | version |
/// | users | business_id, external_id (where set) | users_external | external_id |
/// | devices | key_id (where set) | devices_key_id | key_id |
/// | devices | business_id, approval_code (where set) | devices_approval_code | approval_code |
/// | businesses | api_key_hash (where set) | businesses_api_key | api_key |
/// | businesses | sandbox_api_key_hash (where set) | businesses_sandbox_api_key | sandbox_api_key |
/// | notifications | campaign_id, device_id, trigger_key (a device's message) | notifications_campaign_target | device_id |
/// | notifications | campaign_id, user_id, trigger_key (an inbox entry) | notifications_campaign_inbox | user_id |
/// | device_segments | device_id, segment | device_segments_pkey | segment |
/// | segments | business_id, name | segments_business_id_name_key | name |
/// | campaign_stats | campaign_id, metric | campaign_stats_pkey | metric |
/// | device_events | device_id, event_id | device_events_pkey | event_id |
/// | notification_milestones | notification_id, type | notification_milestones_pkey | type |
/// | idempotency_keys | device_id, key | idempotency_keys_pkey | key |
/// | campaign_answers | campaign_id, period_start | campaign_answers_pkey | period_start |
/// | identity_keys | business_id, kid | identity_keys_pkey | kid |
///
/// A key not listed (a table added later) reports its columns other than `business_id`, joined by commas, when
/// the driver knows them (SQLite), and `<table>_pkey` reports `id`. Add a row here with every new unique key.
package struct UniqueKey: Sendable, Equatable {
    /// The table.
    package var table: String
    /// Its columns, in the key's order.
    package var columns: [String]
    /// PostgreSQL's name for it: the index's name, or the one PostgreSQL gives a table constraint
    /// (`<table>_<columns>_key`, `<table>_pkey`).
    package var name: String
    /// The field a violation is reported on.
    package var field: String

    /// A key of `table` on `columns`, named `name` by PostgreSQL, reported on `field`.
    package init(table: String, columns: [String], name: String, field: String) {
        self.table = table
        self.columns = columns
        self.name = name
        self.field = field
    }

    /// Every unique key of `Schema.migrations`.
    package static let schema: [UniqueKey] = [
        UniqueKey(table: "businesses", columns: ["client_id"], name: "businesses_client_id_key", field: "client"),
        UniqueKey(
            table: "businesses", columns: ["pos_key_hash"], name: "businesses_pos_key_hash_key", field: "pos_key_hash"),
        UniqueKey(
            table: "credentials", columns: ["business_id", "platform"], name: "credentials_pkey", field: "platform"),
        UniqueKey(table: "templates", columns: ["business_id", "event"], name: "templates_pkey", field: "event"),
        UniqueKey(
            table: "users", columns: ["business_id", "email"], name: "users_business_id_email_key", field: "email"),
        UniqueKey(table: "users", columns: ["business_id", "phone"], name: "users_phone", field: "phone"),
        UniqueKey(
            table: "devices", columns: ["business_id", "device_key"], name: "devices_business_id_device_key_key",
            field: "device_key"),
        UniqueKey(
            table: "devices", columns: ["business_id", "platform", "token"], name: "devices_token", field: "token"),
        UniqueKey(table: "sessions", columns: ["token_hash"], name: "sessions_token_hash_key", field: "token_hash"),
        UniqueKey(
            table: "rewards", columns: ["business_id", "redemption_code"], name: "rewards_code",
            field: "redemption_code"),
        UniqueKey(
            table: "checkins", columns: ["business_id", "transaction_id"],
            name: "checkins_business_id_transaction_id_key", field: "transaction_id"),
        UniqueKey(
            table: "gift_cards", columns: ["business_id", "uuid"], name: "gift_cards_business_id_uuid_key",
            field: "uuid"),
        UniqueKey(table: "schema_migrations", columns: ["version"], name: "schema_migrations_pkey", field: "version"),
        UniqueKey(
            table: "users", columns: ["business_id", "external_id"], name: "users_external", field: "external_id"),
        UniqueKey(table: "devices", columns: ["key_id"], name: "devices_key_id", field: "key_id"),
        UniqueKey(
            table: "devices", columns: ["business_id", "approval_code"], name: "devices_approval_code",
            field: "approval_code"),
        UniqueKey(table: "businesses", columns: ["api_key_hash"], name: "businesses_api_key", field: "api_key"),
        UniqueKey(
            table: "businesses", columns: ["sandbox_api_key_hash"], name: "businesses_sandbox_api_key",
            field: "sandbox_api_key"),
        UniqueKey(
            table: "notifications", columns: ["campaign_id", "device_id", "trigger_key"],
            name: "notifications_campaign_target", field: "device_id"),
        UniqueKey(
            table: "notifications", columns: ["campaign_id", "user_id", "trigger_key"],
            name: "notifications_campaign_inbox", field: "user_id"),
        UniqueKey(
            table: "device_segments", columns: ["device_id", "segment"], name: "device_segments_pkey", field: "segment"),
        UniqueKey(
            table: "segments", columns: ["business_id", "name"], name: "segments_business_id_name_key", field: "name"),
        UniqueKey(
            table: "campaign_stats", columns: ["campaign_id", "metric"], name: "campaign_stats_pkey", field: "metric"),
        UniqueKey(
            table: "device_events", columns: ["device_id", "event_id"], name: "device_events_pkey", field: "event_id"),
        UniqueKey(
            table: "notification_milestones", columns: ["notification_id", "type"],
            name: "notification_milestones_pkey", field: "type"),
        UniqueKey(
            table: "idempotency_keys", columns: ["device_id", "key"], name: "idempotency_keys_pkey", field: "key"),
        UniqueKey(
            table: "location_beacons", columns: ["business_id", "minor"], name: "location_beacons_pkey",
            field: "beacon_minors"),
        UniqueKey(
            table: "campaign_answers", columns: ["campaign_id", "period_start"], name: "campaign_answers_pkey",
            field: "period_start"),
        UniqueKey(table: "identity_keys", columns: ["business_id", "kid"], name: "identity_keys_pkey", field: "kid"),
    ]

    /// The field for a violation of the constraint or index PostgreSQL calls `name`; nil for a name not listed
    /// (except `<table>_pkey`: `id`).
    package static func field(constraint name: String) -> String? {
        if let key = schema.first(where: { $0.name == name }) { return key.field }
        return name.hasSuffix("_pkey") ? "id" : nil
    }

    /// The field for a violation on `columns` of `table` (what SQLite reports); a key not listed reports its
    /// columns other than `business_id`.
    package static func field(table: String, columns: [String]) -> String? {
        if let key = schema.first(where: { $0.table == table && $0.columns == columns }) { return key.field }
        let own = columns.filter { $0 != "business_id" }
        return own.isEmpty ? nil : own.joined(separator: ",")
    }
}
