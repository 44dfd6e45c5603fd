import HeraldModel

extension DeviceRecords {
    /// Makes an approved test device that has not called since `since` pending again; false when it was not
    /// (still in use, already pending, or not a test device).
    @discardableResult
    package func lapseTestDevice(id: Int64, unusedSince since: Timestamp) throws -> Bool {
        try tx.connection.execute(
            """
            UPDATE devices SET test_status = 'pending'
            WHERE id = \(id) AND test_status = 'approved' AND COALESCE(last_seen_at, 0) < \(since)
            """) == 1
    }

    /// Approves the sandbox install `id` as a test device, its 30 days counted from `now` (it is seen then).
    package func approveTestDevice(id: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            UPDATE devices SET test_status = 'approved', last_seen_at = \(now), updated_at = \(now)
            WHERE id = \(id) AND workspace = 'sandbox'
            """)
    }
}
