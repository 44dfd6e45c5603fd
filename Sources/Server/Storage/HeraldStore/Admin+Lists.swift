import HeraldModel

// What the admin API lists and the operator's "retry now": read-only pages of a business's rows, newest first
// where that is what an operator looks for.

extension UserRecords {
    /// A page of `businessID`'s users by id, or the one with `email` (lower-cased) when given.
    package func page(businessID: Int64, email: String?, limit: Int, offset: Int) throws -> [User] {
        if let email {
            return try tx.connection.rows(
                """
                SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND email = \(email)
                ORDER BY id LIMIT \(limit) OFFSET \(offset)
                """
            ).map { Self.decode($0) }
        }
        return try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID)
            ORDER BY id LIMIT \(limit) OFFSET \(offset)
            """
        ).map { Self.decode($0) }
    }
}

extension InboxRecords {
    /// A page of `businessID`'s inbox entries, newest first; only `userID`'s when given.
    package func page(businessID: Int64, userID: Int64?, limit: Int, offset: Int) throws -> [InboxEntry] {
        if let userID {
            return try tx.connection.rows(
                """
                SELECT \(raw: Self.columns) FROM notifications WHERE business_id = \(businessID) AND user_id = \(userID)
                ORDER BY id DESC LIMIT \(limit) OFFSET \(offset)
                """
            ).map { Self.decode($0) }
        }
        return try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM notifications WHERE business_id = \(businessID)
            ORDER BY id DESC LIMIT \(limit) OFFSET \(offset)
            """
        ).map { Self.decode($0) }
    }
}

extension DeliveryRecords {
    /// Makes `businessID`'s queued jobs (only `notificationID`'s when given) due at `now`, whatever backoff they
    /// were waiting out; the delivery engine is woken when the transaction commits. Returns how many.
    package func retryNow(businessID: Int64, notificationID: Int64?, at now: Timestamp) throws -> Int {
        var jobs: SQLQuery = "business_id = \(businessID) AND status = 'queued'"
        if let notificationID { jobs += " AND notification_id = \(notificationID)" }
        let update: SQLQuery = "UPDATE deliveries SET next_attempt_at = \(now), updated_at = \(now) WHERE \(jobs)"
        let changed: Int
        if !tx.dialect.queueTables {
            changed = try tx.connection.execute(update)
        } else if notificationID != nil {
            // An entry's jobs, found by its index; made due in the queue's due table too.
            changed = try tx.connection.execute(
                """
                WITH job AS (\(update) RETURNING id)
                UPDATE delivery_due SET due_at = \(now) FROM job WHERE delivery_due.id = job.id
                """)
        } else {
            // A business's: found in the due table, which holds the queued jobs only (no index of `deliveries`
            // reads its status there, and `deliveries` keeps every push ever sent).
            changed = try tx.connection.execute(
                """
                WITH due AS (UPDATE delivery_due SET due_at = \(now) WHERE business_id = \(businessID) RETURNING id)
                UPDATE deliveries SET next_attempt_at = \(now), updated_at = \(now)
                FROM due WHERE deliveries.id = due.id AND deliveries.status = 'queued'
                """)
        }
        tx.deliveriesEnqueued += changed
        return changed
    }
}

extension DeviceRecords {
    /// The device of `businessID` holding `token` on `platform`, if one does.
    package func find(businessID: Int64, platform: PushPlatform, token: String) throws -> Device? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM devices
            WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND token = \(token)
            """
        ).map(Self.decode)
    }
}
