import HeraldModel

/// Delivery jobs as the domain writes and admins read them (the engine works through `DeliveryQueue`).
package struct DeliveryRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, notification_id, business_id, device_id, platform, status, attempts, next_attempt_at, last_reason, \
        provider_message_id, apns_id, created_at, updated_at
        """

    static func decode(_ row: SQLRow) -> Delivery {
        let platform = PushPlatform(row.text(4))
        let status = DeliveryStatus(row.text(5))
        let apnsID = row.text(10)
        // A push Apple accepted under the `apns-id` it was sent with keeps no second copy of it (see
        // `DeliveryCompletion.Outcome.delivered`).
        let messageID = row.optionalText(9) ?? (status == .delivered && platform == .apns ? apnsID : nil)
        return Delivery(
            id: row.int(0), notificationID: row.int(1), businessID: row.int(2), deviceID: row.int(3),
            platform: platform, status: status, attempts: Int(row.int(6)),
            nextAttemptAt: row.timestamp(7), lastReason: row.optionalText(8), providerMessageID: messageID,
            apnsID: apnsID, createdAt: row.timestamp(11), updatedAt: row.timestamp(12))
    }

    /// `statement` (writing `deliveries` rows as queued) followed by writing the jobs it returns on to the due table,
    /// where the queue keeps one (`SQLDialect.queueTables`).
    static func writingDue(_ statement: String) -> String {
        "WITH job AS (\(statement) RETURNING id, next_attempt_at, business_id, platform) "
            + "INSERT INTO delivery_due (id, due_at, business_id, platform) SELECT * FROM job"
    }

    /// Queues several entries, each for its device, due at its time, many a statement (a campaign's batch), each job
    /// with its own stable `apns-id`. The delivery engine is woken when the transaction commits.
    ///
    /// Only `NotificationService` queues jobs: behind `@_spi(NotificationWriter)`, like `InboxRecords.insert`.
    @_spi(NotificationWriter)
    public func enqueue(
        _ jobs: [(entry: InboxEntry, deviceID: Int64, platform: PushPlatform, dueAt: Timestamp)], at now: Timestamp
    ) throws {
        // Where the queue keeps its due jobs apart, each statement writes the jobs on to it.
        let due: ((String) -> String)? = tx.dialect.queueTables ? { Self.writingDue($0) } : nil
        try tx.connection.insertRows(
            into: "deliveries",
            columns: [
                "notification_id", "business_id", "device_id", "platform", "status", "attempts", "next_attempt_at",
                "apns_id", "created_at", "updated_at",
            ],
            jobs.map { job in
                [
                    job.entry.id.sqlValue, job.entry.businessID.sqlValue, job.deviceID.sqlValue,
                    job.platform.rawValue.sqlValue, .text("queued"), .integer(0), job.dueAt.sqlValue,
                    tx.makeUUID().sqlValue, now.sqlValue, now.sqlValue,
                ]
            }, arrays: true, statement: due)
        tx.deliveriesEnqueued += jobs.count
    }

    /// A page of the jobs of one inbox entry, by id.
    package func all(notificationID: Int64, limit: Int, offset: Int) throws -> [Delivery] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM deliveries WHERE notification_id = \(notificationID)
            ORDER BY id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """
        ).map(Self.decode)
    }

    /// The jobs of one inbox entry, by id.
    package func all(notificationID: Int64) throws -> [Delivery] {
        try tx.connection.rows(
            "SELECT \(raw: Self.columns) FROM deliveries WHERE notification_id = \(notificationID) ORDER BY id"
        ).map(Self.decode)
    }
}
