import HeraldModel

/// A stretch of a Firebase project's send time one node leased: from `start` to `end`, nobody else's.
package struct FCMQuotaLease: Sendable, Equatable {
    /// When the stretch starts (now, or where the last lease of another node ends).
    package var start: Timestamp
    /// When it ends: the next lease starts here.
    package var end: Timestamp
    /// The project's quota as the operator overrode it (nil: the node's `--fcm-quota-per-minute`).
    package var quotaPerMinute: Int?

    /// A lease.
    package init(start: Timestamp, end: Timestamp, quotaPerMinute: Int?) {
        self.start = start
        self.end = end
        self.quotaPerMinute = quotaPerMinute
    }
}

/// FCM's send quota per Firebase project, shared by the nodes: the time leased of it so far, and the operator's
/// override of its size.
package struct FCMQuotaRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    /// Leases the next `duration` of `projectID`'s send time at `now`, in one statement: from the end of the last
    /// lease, or from `now` when that is past (time nobody spent is not saved up for a burst).
    package func lease(projectID: String, duration: Duration, at now: Timestamp) throws -> FCMQuotaLease {
        let length = max(1, Int64(duration / .milliseconds(1)))
        let row = try tx.connection.row(
            """
            INSERT INTO fcm_quotas (project_id, next_free) VALUES (\(projectID), \(now.milliseconds + length))
            ON CONFLICT (project_id) DO UPDATE SET next_free = \(length)
                + CASE WHEN fcm_quotas.next_free > \(now.milliseconds) THEN fcm_quotas.next_free
                       ELSE \(now.milliseconds) END
            RETURNING next_free, quota_per_minute
            """)
        guard let row else { throw StoreError(.database, "the quota lease returned no row") }
        let end = row.timestamp(0)
        return FCMQuotaLease(
            start: end.adding(.milliseconds(-length)), end: end, quotaPerMinute: row.optionalInt(1).map { Int($0) })
    }

    /// The operator's quota for `projectID` (nil: none set, the default applies).
    package func quotaPerMinute(projectID: String) throws -> Int? {
        try tx.connection.row("SELECT quota_per_minute FROM fcm_quotas WHERE project_id = \(projectID)")?
            .optionalInt(0).map { Int($0) }
    }

    /// Sets (nil: clears) the operator's quota for `projectID`.
    package func setQuotaPerMinute(_ perMinute: Int?, projectID: String) throws {
        let value = perMinute.map { Int64($0) }
        try tx.connection.execute(
            """
            INSERT INTO fcm_quotas (project_id, quota_per_minute) VALUES (\(projectID), \(value))
            ON CONFLICT (project_id) DO UPDATE SET quota_per_minute = excluded.quota_per_minute
            """)
    }
}
