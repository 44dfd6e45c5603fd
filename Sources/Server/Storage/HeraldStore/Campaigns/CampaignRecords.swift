import HeraldModel

/// Campaigns, their counters, and the devices their fan-out walks.
package struct CampaignRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, name, message, audience, channels, trigger, limits, sandbox, status, fanout_cursor, start_at, \
        launched_at, finished_at, created_at, updated_at
        """

    static func decode(_ row: SQLRow) -> Campaign {
        Campaign(
            id: row.int(0), businessID: row.int(1), name: row.text(2), message: Columns.json(row.text(3)),
            audience: Columns.json(row.text(4)),
            channels: (Columns.json(row.text(5)).arrayValue ?? []).compactMap(\.stringValue),
            trigger: Columns.json(row.text(6)), limits: Columns.json(row.text(7)), sandbox: row.bool(8),
            status: Campaign.Status(row.text(9)), fanoutCursor: row.int(10), startAt: row.optionalTimestamp(11),
            launchedAt: row.optionalTimestamp(12), finishedAt: row.optionalTimestamp(13), createdAt: row.timestamp(14),
            updatedAt: row.timestamp(15))
    }

    /// Creates a campaign (its id is the store's).
    package func insert(_ campaign: Campaign) throws -> Campaign {
        let channels = JSON.array(campaign.channels.map { .string($0) }).encodedString
        return Self.decode(
            try tx.connection.row(
                """
                INSERT INTO campaigns (business_id, name, message, audience, channels, trigger, limits, sandbox, status,
                    start_at, created_at, updated_at)
                VALUES (\(campaign.businessID), \(campaign.name), \(campaign.message.encodedString),
                    \(campaign.audience.encodedString), \(channels), \(campaign.trigger.encodedString),
                    \(campaign.limits.encodedString), \(campaign.sandbox), \(campaign.status.rawValue), \(campaign.startAt),
                    \(campaign.createdAt), \(campaign.updatedAt))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The campaign `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Campaign? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM campaigns WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// The campaign `id`, locked to the transaction where rows can be locked.
    package func lock(id: Int64) throws -> Campaign? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM campaigns WHERE id = \(id) \(tx.forUpdate)").map(
            Self.decode)
    }

    /// A business's campaigns, newest first.
    package func all(businessID: Int64, limit: Int, offset: Int) throws -> [Campaign] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM campaigns WHERE business_id = \(businessID)
            ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """
        ).map(Self.decode)
    }

    /// Moves a campaign from one of `from` to `status`; false when it was in none of them (another call moved it).
    package func changeStatus(
        id: Int64, from: [Campaign.Status], to status: Campaign.Status, at now: Timestamp,
        launched: Bool = false, finished: Bool = false
    ) throws -> Bool {
        let launchedAt: SQLQuery = launched ? ", launched_at = COALESCE(launched_at, \(now))" : ""
        let finishedAt: SQLQuery = finished ? ", finished_at = \(now)" : ""
        return try tx.connection.execute(
            """
            UPDATE campaigns SET status = \(status.rawValue), updated_at = \(now)\(launchedAt)\(finishedAt)
            WHERE id = \(id) AND status IN (\(list: from.map(\.rawValue)))
            """) == 1
    }

    /// Running campaigns whose sending may be due at `now` (started, and with targets left or trigger-driven),
    /// oldest first.
    package func running(at now: Timestamp, limit: Int) throws -> [Campaign] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM campaigns
            WHERE status = 'running' AND (start_at IS NULL OR start_at <= \(now))
            ORDER BY id LIMIT \(max(0, limit))
            """
        ).map(Self.decode)
    }

    /// Moves a campaign's fan-out cursor forward to `cursor` (never back).
    package func advanceCursor(id: Int64, to cursor: Int64, at now: Timestamp) throws {
        try tx.connection.execute(
            """
            UPDATE campaigns SET fanout_cursor = \(cursor), updated_at = \(now)
            WHERE id = \(id) AND fanout_cursor < \(cursor)
            """)
    }

    /// Adds `amount` to a campaign's counter `metric`.
    package func count(_ metric: String, by amount: Int64 = 1, campaignID: Int64) throws {
        guard amount != 0 else { return }
        try tx.connection.execute(
            """
            INSERT INTO campaign_stats (campaign_id, metric, count) VALUES (\(campaignID), \(metric), \(amount))
            ON CONFLICT (campaign_id, metric) DO UPDATE SET count = campaign_stats.count + excluded.count
            """)
    }

    /// How long each row of `campaign_answers` counts answers for.
    package static let answerPeriodLength: Duration = .seconds(10)

    /// The start of the answer period `time` falls in.
    package static func answerPeriod(of time: Timestamp) -> Timestamp {
        let length = answerPeriodLength.components.seconds * 1000
        return Timestamp(milliseconds: time.milliseconds - time.milliseconds % length)
    }

    /// Adds `amount` pushes of `campaignID` answered at `now` to its answer period's row.
    package func countAnswers(_ amount: Int64, campaignID: Int64, at now: Timestamp) throws {
        guard amount != 0 else { return }
        let period = Self.answerPeriod(of: now)
        try tx.connection.execute(
            """
            INSERT INTO campaign_answers (campaign_id, period_start, count) VALUES (\(campaignID), \(period), \(amount))
            ON CONFLICT (campaign_id, period_start) DO UPDATE SET count = campaign_answers.count + excluded.count
            """)
    }

    /// Pushes of `campaignID` answered in the answer periods starting at or after `since` (by primary key).
    package func answers(campaignID: Int64, since: Timestamp) throws -> Int64 {
        try tx.connection.scalar(
            """
            SELECT COALESCE(SUM(count), 0) FROM campaign_answers
            WHERE campaign_id = \(campaignID) AND period_start >= \(since)
            """)
    }

    /// A campaign's counters.
    package func counters(campaignID: Int64) throws -> [String: Int64] {
        var counters: [String: Int64] = [:]
        try tx.connection.forEachRow(
            "SELECT metric, count FROM campaign_stats WHERE campaign_id = \(campaignID)"
        ) { counters[$0.text(0)] = $0.int(1) }
        return counters
    }

    /// How many campaign messages went to `deviceID` since `since` (of `campaignID` only, when given), and when the
    /// newest was made: what caps, cooldowns and per-install maximums are checked against.
    package func messages(toDevice deviceID: Int64, campaignID: Int64? = nil, since: Timestamp) throws -> (
        count: Int, latest: Timestamp?
    ) {
        let campaign: SQLQuery =
            campaignID.map { id -> SQLQuery in "AND campaign_id = \(id)" } ?? "AND campaign_id IS NOT NULL"
        let row = try tx.connection.row(
            """
            SELECT COUNT(*), MAX(created_at) FROM notifications
            WHERE device_id = \(deviceID) \(campaign) AND created_at >= \(since)
            """)
        return (Int(row?.int(0) ?? 0), row?.optionalTimestamp(1))
    }

    /// How many campaign entries went to `userID` themselves (not to one of their devices) since `since` (of
    /// `campaignID` only, when given), and when the newest was made: the caps and cooldowns of a Punchh app's user.
    package func messages(toUser userID: Int64, campaignID: Int64? = nil, since: Timestamp) throws -> (
        count: Int, latest: Timestamp?
    ) {
        let campaign: SQLQuery =
            campaignID.map { id -> SQLQuery in "AND campaign_id = \(id)" } ?? "AND campaign_id IS NOT NULL"
        let row = try tx.connection.row(
            """
            SELECT COUNT(*), MAX(created_at) FROM notifications
            WHERE user_id = \(userID) AND device_id IS NULL \(campaign) AND created_at >= \(since)
            """)
        return (Int(row?.int(0) ?? 0), row?.optionalTimestamp(1))
    }

    /// The entry of `campaignID` for `triggerKey` addressed to `userID` (rather than to one device), if there is
    /// one.
    package func userEntry(campaignID: Int64, userID: Int64, triggerKey: String) throws -> InboxEntry? {
        try userEntries(campaignID: campaignID, userIDs: [userID], triggerKey: triggerKey)[userID]
    }

    /// The entries of `campaignID` for `triggerKey` addressed to any of `userIDs` (rather than to one device), by
    /// user: a fan-out's batch reads them in one statement, not one per target (a round trip each on PostgreSQL),
    /// each by the campaign's unique index (an `IN` list was planned as a scan of the campaign's entries so far until
    /// autovacuum analyzed the table: 15 ms a batch at 200,000).
    package func userEntries(campaignID: Int64, userIDs: [Int64], triggerKey: String) throws -> [Int64: InboxEntry] {
        guard !userIDs.isEmpty else { return [:] }
        var entries: [Int64: InboxEntry] = [:]
        let campaign: SQLQuery = "campaign_id = \(campaignID) AND trigger_key = \(triggerKey) AND device_id IS NULL"
        try tx.connection.forEachRow(
            tx.rows(InboxRecords.columns, of: "notifications", where: campaign, "user_id", in: userIDs)
        ) { row in
            let entry = InboxRecords.decode(row)
            if let userID = entry.userID { entries[userID] = entry }
        }
        return entries
    }
}

extension CampaignRecords {
    /// Adds `amount` (negative to take back) to a campaign's counter `metric`.
    package func count(_ metric: CampaignMetric, by amount: Int64 = 1, campaignID: Int64) throws {
        try count(metric.rawValue, by: amount, campaignID: campaignID)
    }
}
