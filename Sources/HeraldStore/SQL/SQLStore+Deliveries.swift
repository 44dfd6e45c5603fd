import HeraldModel

extension SQLStore {
    static let deliveryColumns = """
        id, notification_id, business_id, device_id, platform, status, attempts, next_attempt_at, last_reason, \
        provider_message_id, apns_id, created_at, updated_at
        """

    static func delivery(_ row: SQLRow) -> Delivery {
        Delivery(
            id: row.int(0), notificationID: row.int(1), businessID: row.int(2), deviceID: row.int(3),
            platform: PushPlatform(row.text(4)), status: DeliveryStatus(row.text(5)), attempts: Int(row.int(6)),
            nextAttemptAt: row.timestamp(7), lastReason: row.optionalText(8), providerMessageID: row.optionalText(9),
            apnsID: row.text(10), createdAt: row.timestamp(11), updatedAt: row.timestamp(12))
    }

    private static let qualifiedNotificationColumns = qualified(notificationColumns, "n")
    /// What a claim reads before the notification's columns: the job, its device's token, and the badge (the
    /// recipient's unread count).
    private static let claimColumns = """
        d.id, d.attempts, d.apns_id, d.platform, v.token, v.token_updated_at, d.device_id, v.user_id, \
        (SELECT COUNT(*) FROM notifications u WHERE u.user_id = n.user_id AND u.read_at IS NULL \
        AND u.deleted_at IS NULL AND u.visible = 1)
        """
    private static let claimColumnCount = count(claimColumns)

    public func claimDeliveries(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws
        -> [ClaimedDelivery]
    {
        guard limit > 0 else { return [] }
        let lock = database.dialect.skipLocked
        return try database.write { db in
            var ids: [Int64] = []
            // Jobs whose worker died: their lease ran out.
            try db.forEachRow(
                """
                UPDATE deliveries SET status = 'sending', lease_owner = \(owner), lease_until = \(leaseUntil),
                    attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (SELECT id FROM deliveries WHERE status = 'sending' AND lease_until <= \(now)
                             ORDER BY lease_until LIMIT \(limit) \(raw: lock))
                RETURNING id
                """
            ) { ids.append($0.int(0)) }
            if ids.count < limit {
                try db.forEachRow(
                    """
                    UPDATE deliveries SET status = 'sending', lease_owner = \(owner), lease_until = \(leaseUntil),
                        attempts = attempts + 1, updated_at = \(now)
                    WHERE id IN (SELECT id FROM deliveries WHERE status = 'queued' AND next_attempt_at <= \(now)
                                 ORDER BY next_attempt_at, id LIMIT \(limit - ids.count) \(raw: lock))
                    RETURNING id
                    """
                ) { ids.append($0.int(0)) }
            }
            guard !ids.isEmpty else { return [] }
            var claimed: [ClaimedDelivery] = []
            claimed.reserveCapacity(ids.count)
            try db.forEachRow(
                """
                SELECT \(raw: Self.claimColumns), \(raw: Self.qualifiedNotificationColumns)
                FROM deliveries d
                JOIN notifications n ON n.id = d.notification_id
                JOIN devices v ON v.id = d.device_id
                WHERE d.id IN (\(list: ids))
                ORDER BY d.id
                """
            ) { row in
                let entry = Self.notification(row, from: Self.claimColumnCount)
                claimed.append(
                    ClaimedDelivery(
                        id: row.int(0), attempts: Int(row.int(1)), apnsID: row.text(2),
                        platform: PushPlatform(row.text(3)),
                        token: row.optionalText(4), tokenUpdatedAt: row.optionalTimestamp(5), deviceID: row.int(6),
                        deviceBelongsToRecipient: row.int(7) == entry.userID, notification: entry,
                        badge: Int(row.int(8))))
            }
            return claimed
        }
    }

    public func completeDeliveries(_ completions: [DeliveryCompletion], at now: Timestamp) throws -> Int {
        guard !completions.isEmpty else { return 0 }
        return try database.write { db in
            var applied = 0
            for completion in completions {
                let owned: SQLQuery =
                    " WHERE id = \(completion.id) AND status = 'sending' AND lease_owner = \(completion.leaseOwner)"
                let changed: Int
                switch completion.outcome {
                case .delivered(let messageID):
                    changed = try db.execute(
                        """
                        UPDATE deliveries SET status = 'delivered', provider_message_id = \(messageID), last_reason = NULL,
                            lease_owner = NULL, lease_until = NULL, updated_at = \(now)\(owned)
                        """)
                case .retry(let at, let reason):
                    changed = try db.execute(
                        """
                        UPDATE deliveries SET status = 'queued', next_attempt_at = \(at), last_reason = \(reason),
                            lease_owner = NULL, lease_until = NULL, updated_at = \(now)\(owned)
                        """)
                case .wait(let until, let reason):
                    changed = try db.execute(
                        """
                        UPDATE deliveries SET status = 'queued', next_attempt_at = \(until), last_reason = \(reason),
                            attempts = attempts - 1, lease_owner = NULL, lease_until = NULL, updated_at = \(now)\(owned)
                        """)
                case .failed, .skipped, .pruned:
                    changed = try db.execute(
                        """
                        UPDATE deliveries SET status = \(completion.outcome.status.rawValue),
                            last_reason = \(completion.outcome.reason),
                            lease_owner = NULL, lease_until = NULL, updated_at = \(now)\(owned)
                        """)
                }
                if changed > 0, case .pruned(_, let unregisteredAt) = completion.outcome, let token = completion.token {
                    // A token registered again after Apple saw it die stays.
                    let cutoff = unregisteredAt ?? Timestamp(milliseconds: Int64.max)
                    try db.execute(
                        """
                        UPDATE devices SET token = NULL, token_updated_at = \(now), updated_at = \(now)
                        WHERE id = \(completion.deviceID) AND token = \(token)
                          AND COALESCE(token_updated_at, 0) < \(cutoff)
                        """)
                }
                applied += changed
            }
            return applied
        }
    }

    public func releaseDeliveries(owner: String, at now: Timestamp) throws -> Int {
        try database.write { db in
            try db.execute(
                """
                UPDATE deliveries SET status = 'queued', attempts = attempts - 1, next_attempt_at = \(now),
                    lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                WHERE status = 'sending' AND lease_owner = \(owner)
                """)
        }
    }

    public func deliveries(notificationID: Int64) throws -> [Delivery] {
        try database.read { db in
            try db.rows(
                "SELECT \(raw: Self.deliveryColumns) FROM deliveries WHERE notification_id = \(notificationID) ORDER BY id"
            )
            .map(Self.delivery)
        }
    }

    public func queueDepth(at now: Timestamp) throws -> QueueDepth {
        try database.read { db in
            let row = try db.row(
                """
                SELECT
                    (SELECT COUNT(*) FROM deliveries WHERE status = 'queued'),
                    (SELECT COUNT(*) FROM deliveries WHERE status = 'queued' AND next_attempt_at <= \(now)),
                    (SELECT COUNT(*) FROM deliveries WHERE status = 'sending')
                """)!
            return QueueDepth(queued: Int(row.int(0)), due: Int(row.int(1)), sending: Int(row.int(2)))
        }
    }

    public func rescheduleDeliveries(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws {
        _ = try database.write { db in
            try db.execute(
                """
                UPDATE deliveries SET next_attempt_at = \(dueAt)
                WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND status = 'queued'
                """)
        }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var slice = self
        while slice.first?.isWhitespace == true { slice = slice.dropFirst() }
        while slice.last?.isWhitespace == true { slice = slice.dropLast() }
        return String(slice)
    }
}
