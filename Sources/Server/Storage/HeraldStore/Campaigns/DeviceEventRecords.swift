import HeraldModel

/// What devices report (the device API's lifecycle events), each kept once per device and event id.
package struct DeviceEventRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    /// Keeps an event; false when the device had sent this event id before (a retried batch).
    package func insert(
        deviceID: Int64, businessID: Int64, eventID: String, type: String, notificationID: Int64?,
        occurredAt: Timestamp, data: JSON?, at now: Timestamp
    ) throws -> Bool {
        try tx.connection.execute(
            """
            INSERT INTO device_events (device_id, event_id, business_id, type, notification_id, occurred_at, data,
                received_at)
            VALUES (\(deviceID), \(eventID), \(businessID), \(type), \(notificationID), \(occurredAt),
                \(data?.encodedString), \(now))
            ON CONFLICT (device_id, event_id) DO NOTHING
            """) == 1
    }

    /// How many events a device has sent.
    package func count(deviceID: Int64) throws -> Int {
        Int(try tx.connection.scalar("SELECT COUNT(*) FROM device_events WHERE device_id = \(deviceID)"))
    }

    /// The answer kept for a device's `key` (an `Idempotency-Key`), if it sent that key before.
    package func answer(deviceID: Int64, key: String) throws -> (answer: JSON, requestHash: String?)? {
        try tx.connection.row(
            "SELECT answer, request_hash FROM idempotency_keys WHERE device_id = \(deviceID) AND key = \(key)"
        ).map { (Columns.json($0.text(0)), $0.optionalText(1)) }
    }

    /// Keeps the answer to a device's `key`, and the digest of the request it answered; false when one was kept
    /// already (a concurrent twin).
    package func keep(answer: JSON, requestHash: String?, deviceID: Int64, key: String, at now: Timestamp) throws
        -> Bool
    {
        try tx.connection.execute(
            """
            INSERT INTO idempotency_keys (device_id, key, answer, request_hash, created_at)
            VALUES (\(deviceID), \(key), \(answer.encodedString), \(requestHash), \(now))
            ON CONFLICT (device_id, key) DO NOTHING
            """) == 1
    }

    /// Replaces the answer kept for a device's `key` (a reservation made with `keep`, now filled in).
    package func replace(answer: JSON, deviceID: Int64, key: String) throws {
        try tx.connection.execute(
            """
            UPDATE idempotency_keys SET answer = \(answer.encodedString) WHERE device_id = \(deviceID) AND key = \(key)
            """)
    }

    /// Forgets the answers kept for a device's keys starting `prefix` (no `%` or `_` in it) before `cutoff`.
    package func forget(deviceID: Int64, keysStarting prefix: String, before cutoff: Timestamp) throws {
        try tx.connection.execute(
            """
            DELETE FROM idempotency_keys
            WHERE device_id = \(deviceID) AND key LIKE \(prefix + "%") AND created_at < \(cutoff)
            """)
    }
}
