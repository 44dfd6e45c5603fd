import HeraldModel
import HeraldDeliveryPorts
import Synchronization

/// `DeliveryQueue` over the store's SQL database. SQLite, whose one writer claims alone, walks `deliveries`' partial
/// indexes of due and leased jobs.
///
/// On PostgreSQL (`SQLDialect.queueTables`) the due jobs wait in a table of their own and each claim is a row of
/// `delivery_claims` (see `Schema.queueTables` and `SQLDeliveryQueue+QueueTables.swift`); SQLite walks the partial
/// indexes of `deliveries`.
package final class SQLDeliveryQueue: DeliveryQueue {
    let database: any SQLDatabase
    let changes: ChangeSignals
    /// This process's claims still holding jobs not yet answered (PostgreSQL): a claim's row is deleted with its
    /// last answer.
    let claimBook = Mutex(ClaimBook())

    init(database: any SQLDatabase, changes: ChangeSignals) {
        self.database = database
        self.changes = changes
    }

    package func onJobsAdded(_ wake: @escaping @Sendable () -> Void) { changes.onDeliveriesAdded(wake) }

    /// Jobs may have been added by another process (its notification arrived): wakes the engine.
    package func jobsAddedElsewhere() { changes.deliveriesAdded() }

    /// The entry's columns a push is worded from (`QueuedNotification`), and whom it is for.
    static let notificationColumns = """
        n.id, n.business_id, n.title, n.subtitle, n.body, n.sound, n.media_url, n.media_type, n.extras, \
        n.push_style, n.collapse_id, n.campaign_id, n.created_at, n.user_id, n.device_id
        """
    /// What a claim reads before the entry's columns: the job, its device's token (and the APNs environment it is
    /// of), and the badge (the recipient's unread count).
    static let claimColumns = """
        d.id, d.attempts, d.apns_id, d.platform, v.token, v.token_updated_at, d.device_id, v.user_id, \
        (SELECT COUNT(*) FROM notifications u WHERE u.user_id = n.user_id AND u.read_at IS NULL \
        AND u.deleted_at IS NULL AND u.visible = 1), c.message, v.workspace, c.status, v.apns_environment
        """
    static let claimColumnCount = Columns.count(claimColumns)
    /// How many columns a claimed job is read from: `claimColumns` then `notificationColumns`.
    static let claimedColumnCount = claimColumnCount + Columns.count(notificationColumns)

    /// A claimed job read from `claimColumns` and `notificationColumns`; its attempts are the row's plus `added`
    /// (SQLite reads the row before its update, PostgreSQL's statement returns it after). A campaign's message is
    /// the same for each of its pushes: parsed once a claim (a few µs each) and kept in `campaignMessages`.
    static func claimed(_ row: SQLRow, attemptsAdded added: Int64, campaignMessages: inout [Int64: JSON])
        -> ClaimedDelivery
    {
        let o = claimColumnCount
        let entry = QueuedNotification(
            id: row.int(o), businessID: row.int(o + 1), title: row.text(o + 2),
            subtitle: row.optionalText(o + 3), body: row.text(o + 4), sound: row.optionalText(o + 5),
            media: row.optionalText(o + 6).map { MediaAttachment(url: $0, type: row.text(o + 7)) },
            extras: Columns.json(row.text(o + 8)), pushStyle: PushStyle(row.text(o + 9)),
            collapseID: row.optionalText(o + 10), campaignID: row.optionalInt(o + 11),
            createdAt: row.timestamp(o + 12))
        let (recipient, addressedDevice) = (row.optionalInt(o + 13), row.optionalInt(o + 14))
        let campaignMessage = entry.campaignID.flatMap { campaignID -> JSON? in
            if let parsed = campaignMessages[campaignID] { return parsed }
            let parsed = row.optionalText(9).map(Columns.json)
            campaignMessages[campaignID] = parsed
            return parsed
        }
        // An entry addressed to one device goes to it; one for a user, to a device still theirs.
        return ClaimedDelivery(
            id: row.int(0), attempts: Int(row.int(1) + added), apnsID: row.text(2),
            platform: PushPlatform(row.text(3)), token: row.optionalText(4),
            tokenUpdatedAt: row.optionalTimestamp(5), deviceID: row.int(6),
            deviceBelongsToRecipient: addressedDevice.map { $0 == row.int(6) } ?? (row.optionalInt(7) == recipient),
            notification: entry, badge: Int(row.int(8)), campaignMessage: campaignMessage,
            deviceIsInstall: row.optionalText(10) != nil, campaignStatus: row.optionalText(11),
            apnsEnvironment: row.optionalText(12))
    }

    package func claim(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws
        -> [ClaimedDelivery]
    {
        guard limit > 0 else { return [] }
        if database.dialect.queueTables {
            return try claimFromQueueTables(owner: owner, limit: limit, leaseUntil: leaseUntil, at: now)
        }
        defer { changes.queueWritten() }
        return try database.write { db in
            var claimed: [ClaimedDelivery] = []
            claimed.reserveCapacity(limit)
            var campaignMessages: [Int64: JSON] = [:]
            // The first `count` jobs `filter` finds in `order`, read with all a push needs, then one update of
            // their rows (an `UPDATE … RETURNING` cost SQLite more: it buffers what it returns). SQLite reads each
            // job in the walk of the index that finds it: finding the ids first and reading their rows by an `IN`
            // list cost a second pass and a temporary index, 0.5 µs a push.
            func read(_ filter: SQLQuery, order: String, count: Int) throws {
                try db.forEachRow(
                    """
                    SELECT \(raw: Self.claimColumns), \(raw: Self.notificationColumns)
                    FROM deliveries d
                    JOIN notifications n ON n.id = d.notification_id
                    JOIN devices v ON v.id = d.device_id
                    LEFT JOIN campaigns c ON c.id = n.campaign_id
                    WHERE \(filter) ORDER BY \(raw: order) LIMIT \(count)
                    """
                ) { row in
                    claimed.append(Self.claimed(row, attemptsAdded: 1, campaignMessages: &campaignMessages))
                }
            }
            // Jobs whose worker died (their lease ran out), then jobs due.
            try read("d.status = 'sending' AND d.lease_until <= \(now)", order: "d.lease_until", count: limit)
            if claimed.count < limit {
                try read(
                    "d.status = 'queued' AND d.next_attempt_at <= \(now)", order: "d.next_attempt_at, d.id",
                    count: limit - claimed.count)
            }
            guard !claimed.isEmpty else { return [] }
            try db.execute(
                """
                UPDATE deliveries SET status = 'sending', lease_owner = \(owner), lease_until = \(leaseUntil),
                    attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (\(list: claimed.map(\.id)))
                """)
            return claimed
        }
    }

    @discardableResult
    package func record(_ completions: [DeliveryCompletion], at now: Timestamp) throws -> Int {
        guard !completions.isEmpty else { return 0 }
        defer { changes.queueWritten() }
        return try database.write { db in
            var applied = 0
            var campaignOutcomes: [Int64: (delivered: Int64, failed: Int64)] = [:]
            // Pushes Apple or Google accepted, nearly every answer: one statement per batch of rows, not one per
            // row (per-row statements were what capped a node on PostgreSQL: a round trip each). The batches are
            // grouped by what they count for, so each statement's change count is that group's: no `RETURNING`
            // (measured: 2 µs a row in SQLite, two thirds of what the row's own update costs).
            var accepted: [AcceptedGroup: [DeliveryCompletion]] = [:]
            // Pushes back in the queue the same way (a step's pushes held back by a credential at its limit, all
            // until the same time): one statement a group, as the accepted ones. Measured with three nodes, which
            // held pushes back 24,000-91,000 times for 100,000 pushes: a statement each cost PostgreSQL 17-26 µs a
            // push held back, a statement a group 10-12 (bench/RESULTS.md).
            var requeues: [RequeueGroup: [Int64]] = [:]
            var others: [DeliveryCompletion] = []
            for completion in completions {
                switch completion.outcome {
                case .delivered(let messageID):
                    let group = AcceptedGroup(
                        campaignID: completion.campaignID, leaseOwner: completion.leaseOwner,
                        withMessageID: messageID != nil)
                    accepted[group, default: []].append(completion)
                case .retry(let at, let reason):
                    let group = RequeueGroup(
                        dueAt: at, reason: reason, attemptCounts: true, leaseOwner: completion.leaseOwner)
                    requeues[group, default: []].append(completion.id)
                case .wait(let until, let reason):
                    let group = RequeueGroup(
                        dueAt: until, reason: reason, attemptCounts: false, leaseOwner: completion.leaseOwner)
                    requeues[group, default: []].append(completion.id)
                case .failed, .skipped, .pruned:
                    others.append(completion)
                }
            }
            for (group, rows) in accepted {
                for start in stride(from: 0, to: rows.count, by: Self.recordChunk) {
                    let chunk = rows[start..<min(start + Self.recordChunk, rows.count)]
                    let changed = try db.execute(Self.markDelivered(chunk, group, at: now, database.dialect))
                    applied += changed
                    if let campaign = group.campaignID {
                        campaignOutcomes[campaign, default: (0, 0)].delivered += Int64(changed)
                    }
                }
            }
            for (group, ids) in requeues {
                for start in stride(from: 0, to: ids.count, by: Self.recordChunk) {
                    let chunk = Array(ids[start..<min(start + Self.recordChunk, ids.count)])
                    // A push held back (`wait`) keeps its attempt: it was not sent.
                    applied += try db.execute(
                        requeued(
                            """
                            UPDATE deliveries SET status = 'queued', next_attempt_at = \(group.dueAt),
                                last_reason = \(group.reason),\(raw: group.attemptCounts ? "" : " attempts = attempts - 1,")
                                lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                            WHERE id \(in: chunk, database.dialect) AND status = 'sending' AND lease_owner = \(group.leaseOwner)
                            """))
                }
            }
            for completion in others {
                let owned: SQLQuery =
                    " WHERE id = \(completion.id) AND status = 'sending' AND lease_owner = \(completion.leaseOwner)"
                let changed: Int
                switch completion.outcome {
                case .delivered, .retry, .wait:
                    preconditionFailure("accepted and requeued pushes are written above")
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
                // (A campaign counts its failures here; its deliveries were counted above.)
                let status = completion.outcome.status
                if changed > 0, let campaign = completion.campaignID, status == .failed || status == .pruned {
                    campaignOutcomes[campaign, default: (0, 0)].failed += 1
                }
            }
            for completion in completions {
                guard let environment = completion.apnsEnvironment, let token = completion.token else { continue }
                // Apple's other host took the token: its next pushes go there first (rare: not batched).
                try db.execute(
                    """
                    UPDATE devices SET apns_environment = \(environment)
                    WHERE id = \(completion.deviceID) AND token = \(token)
                    """)
            }
            if database.dialect.queueTables { try forgetClaims(answered: completions, in: db) }
            // A campaign's report counts its pushes as they are answered, in the same transaction.
            let campaigns = StoreTransaction(connection: db, dialect: database.dialect, makeUUID: { "" }).campaigns
            // In id order: two nodes counting the same campaigns take their rows' locks in the same order.
            for (campaign, counts) in campaignOutcomes.sorted(by: { $0.key < $1.key }) {
                try campaigns.count("delivered", by: counts.delivered, campaignID: campaign)
                try campaigns.count("failed", by: counts.failed, campaignID: campaign)
                // And when: the report's send rate.
                try campaigns.countAnswers(counts.delivered + counts.failed, campaignID: campaign, at: now)
            }
            return applied
        }
    }

    /// Most rows one `markDelivered` statement carries.
    static let recordChunk = 256

    /// Pushes one statement of `record` puts back in the queue together: due again at the same time for the same
    /// reason, under the same lease.
    struct RequeueGroup: Hashable {
        /// When they are due again.
        var dueAt: Timestamp
        /// Why they went back.
        var reason: String
        /// Whether the attempt counts (`retry`: sent and refused) or is handed back (`wait`: held back unsent).
        var attemptCounts: Bool
        /// Their lease holder.
        var leaseOwner: String
    }

    /// Accepted pushes one `markDelivered` statement can mark together.
    struct AcceptedGroup: Hashable {
        /// The campaign they count for.
        var campaignID: Int64?
        /// Their lease holder.
        var leaseOwner: String
        /// Whether the provider named its own id for each (FCM); without one (APNs answers with the job's own
        /// `apns-id`) the statement is a plain list of ids, which SQLite updates at two thirds of the cost.
        var withMessageID: Bool
    }

    /// One statement marking `completions` (all `.delivered`, all of `group`) delivered where their lease is still
    /// theirs; its change count is how many it marked. Batches of any size share one prepared statement on
    /// PostgreSQL, the ids (and the provider's) bound as arrays, and a few on SQLite: the plain ids go as an `IN`
    /// list, which `SQLQuery` pads to a power of two; the rows with the provider's ids are padded the same way, by
    /// repeating the last (which changes nothing: a row is updated once).
    static func markDelivered(
        _ completions: ArraySlice<DeliveryCompletion>, _ group: AcceptedGroup, at now: Timestamp, _ dialect: SQLDialect
    ) -> SQLQuery {
        guard group.withMessageID else {
            return """
                UPDATE deliveries SET status = 'delivered', provider_message_id = NULL, last_reason = NULL,
                    lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                WHERE lease_owner = \(group.leaseOwner) AND status = 'sending'
                    AND id \(in: completions.map(\.id), dialect)
                """
        }
        if dialect.bindsArrays {
            let messageIDs = completions.map { completion -> SQLValue in
                guard case .delivered(let messageID) = completion.outcome else { preconditionFailure("not delivered") }
                return messageID.map(SQLValue.text) ?? .null
            }
            return """
                UPDATE deliveries SET status = 'delivered', provider_message_id = v.message_id, last_reason = NULL,
                    lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                FROM unnest(\(array: completions.map(\.id))::bigint[], \(array: messageIDs)::text[]) AS v(id, message_id)
                WHERE deliveries.lease_owner = \(group.leaseOwner) AND deliveries.id = v.id
                    AND deliveries.status = 'sending'
                """
        }
        var rows = 1
        while rows < completions.count { rows *= 2 }
        // In the order the statement's text has them: the owner comes after the rows (a `FROM` precedes the `WHERE`).
        var bindings: [SQLValue] = [now.sqlValue]
        bindings.reserveCapacity(2 + 2 * rows)
        for index in 0..<rows {
            let completion = completions[completions.startIndex + min(index, completions.count - 1)]
            guard case .delivered(let messageID) = completion.outcome else { preconditionFailure("not delivered") }
            bindings.append(.integer(completion.id))
            bindings.append(messageID.map(SQLValue.text) ?? .null)
        }
        bindings.append(.text(group.leaseOwner))
        // `record` hands over at most `recordChunk` rows at a time, so the padded count has its statement written.
        return SQLQuery(sql: markDeliveredWithIDsSQL[rows.trailingZeroBitCount], bindings: bindings)
    }

    /// `markDelivered`'s statements with the provider's ids, for 1, 2, 4, … `recordChunk` rows, written once.
    private static let markDeliveredWithIDsSQL = (0...recordChunk.trailingZeroBitCount).map { power in
        """
        UPDATE deliveries SET status = 'delivered', provider_message_id = v.column2, last_reason = NULL,
            lease_owner = NULL, lease_until = NULL, updated_at = ?
        FROM (VALUES \(repeatElement("(CAST(? AS BIGINT), CAST(? AS TEXT))", count: 1 << power).joined(separator: ", ")))
            AS v
        WHERE deliveries.lease_owner = ? AND deliveries.id = v.column1 AND deliveries.status = 'sending'
        """
    }

    @discardableResult
    package func handBack(owner: String, at now: Timestamp) throws -> Int {
        if database.dialect.queueTables { return try handBackClaims(owner: owner, at: now) }
        defer { changes.queueWritten() }
        return try database.write { db in
            try db.execute(
                """
                UPDATE deliveries SET status = 'queued', attempts = attempts - 1, next_attempt_at = \(now),
                    lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                WHERE status = 'sending' AND lease_owner = \(owner)
                """)
        }
    }

    package func depth(at now: Timestamp) throws -> QueueDepth {
        if database.dialect.queueTables { return try queueTablesDepth(at: now) }
        return try database.read { db in
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

    package func brokenCredentials() throws -> [BrokenCredential] {
        try database.read { db in
            try db.rows(
                """
                SELECT business_id, platform, broken_reason FROM credentials WHERE broken_reason IS NOT NULL
                ORDER BY business_id, platform
                """
            ).map {
                BrokenCredential(businessID: $0.int(0), platform: PushPlatform($0.text(1)), reason: $0.text(2))
            }
        }
    }

    package func markCredentialBroken(businessID: Int64, platform: PushPlatform, reason: String, observedAt: Timestamp)
        throws -> Bool
    {
        defer { changes.queueWritten() }
        return try database.write { db in
            try db.execute(
                """
                UPDATE credentials SET broken_reason = \(reason)
                WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND updated_at <= \(observedAt)
                """) > 0
        }
    }

    package func reschedule(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws {
        try database.write { db in
            let update: SQLQuery = """
                UPDATE deliveries SET next_attempt_at = \(dueAt)
                WHERE business_id = \(businessID) AND platform = \(platform.rawValue) AND status = 'queued'
                """
            guard database.dialect.queueTables else { return try db.execute(update) }
            // Found in the due table, which holds the queued jobs only: no index of `deliveries` reads its status
            // there, and `deliveries` keeps every push ever sent.
            return try db.execute(
                """
                WITH due AS (
                    UPDATE delivery_due SET due_at = \(dueAt)
                    WHERE business_id = \(businessID) AND platform = \(platform.rawValue) RETURNING id)
                UPDATE deliveries SET next_attempt_at = \(dueAt)
                FROM due WHERE deliveries.id = due.id AND deliveries.status = 'queued'
                """)
        }
        changes.deliveriesAdded()
    }
}
