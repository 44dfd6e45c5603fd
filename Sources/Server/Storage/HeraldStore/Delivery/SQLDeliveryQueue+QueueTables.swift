import HeraldModel
import HeraldDeliveryPorts

/// The queue on PostgreSQL (`SQLDialect.queueTables`, `Schema.queueTables`): due jobs in `delivery_due`, one row
/// of `delivery_claims` per claim, each job's `deliveries` row updated in place.
///
/// A push costs the database: its due row deleted by the claim that takes it, and two updates of its `deliveries`
/// row (claimed, answered) that touch no indexed column, so each stays on the row's page without an index entry
/// (HOT); the claim's own row, a few hundred jobs each, is written once and deleted with its last answer. Measured
/// side by side on one PostgreSQL (bench/RESULTS.md, "the queue on PostgreSQL"): about half the server's CPU a push
/// of the partial indexes' plan, and less again with several nodes claiming at once.
///
/// Crash safety: a claim's row names its owner, its lease and its jobs. A claim reads first the rows whose lease
/// ran out (another node's, dead, or its own before a restart) and takes over their jobs still leased; a node
/// starting or stopping hands back its own (`handBack`). A job's row says whose lease it is under, so an answer
/// from a node that lost it is ignored, as on SQLite.
extension SQLDeliveryQueue {
    /// What a claim reads of each job: `claimColumns` and `notificationColumns` (the same layout as SQLite's
    /// claim), then its claim's id.
    private static let claimedJobs = """
        SELECT \(claimColumns), \(notificationColumns), (SELECT id FROM lease)
        FROM claimed d
        JOIN notifications n ON n.id = d.notification_id
        JOIN devices v ON v.id = d.device_id
        LEFT JOIN campaigns c ON c.id = n.campaign_id
        ORDER BY d.next_attempt_at, d.id
        """

    /// Leases to `owner` the jobs `jobs` names (a statement returning their ids, having locked or taken them) that
    /// are still in `status`, and reads them, in one statement that also writes the claim's row.
    private static func leasing(
        _ jobs: SQLQuery, status: String, owner: String, leaseUntil: Timestamp, at now: Timestamp
    ) -> SQLQuery {
        """
        WITH job AS (\(jobs)),
        claimed AS (
            UPDATE deliveries d SET status = 'sending', lease_owner = \(owner), lease_until = \(leaseUntil),
                attempts = d.attempts + 1, updated_at = \(now)
            FROM job WHERE d.id = job.id AND d.status = \(status)
            RETURNING d.id, d.attempts, d.apns_id, d.platform, d.device_id, d.notification_id, d.next_attempt_at),
        lease AS (
            INSERT INTO delivery_claims (owner, lease_until, jobs)
            SELECT \(owner), \(leaseUntil), array_agg(id) FROM claimed HAVING COUNT(*) > 0 RETURNING id)
        \(raw: claimedJobs)
        """
    }

    func claimFromQueueTables(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws
        -> [ClaimedDelivery]
    {
        defer { changes.queueWritten() }
        let claims = try database.write { db in
            var claimed: [(job: ClaimedDelivery, claim: Int64)] = []
            claimed.reserveCapacity(limit)
            var campaignMessages: [Int64: JSON] = [:]
            func take(_ jobs: SQLQuery, status: String) throws {
                let leasing = Self.leasing(jobs, status: status, owner: owner, leaseUntil: leaseUntil, at: now)
                try db.forEachRow(leasing) { row in
                    claimed.append(
                        (
                            Self.claimed(row, attemptsAdded: 0, campaignMessages: &campaignMessages),
                            row.int(Self.claimedColumnCount)
                        ))
                }
            }
            // Claims whose lease ran out (a node died, or stopped without handing back): their jobs still leased.
            var expired: [Int64] = []
            var orphaned: [Int64] = []
            try db.forEachRow(
                """
                SELECT c.id, j.id FROM (
                    SELECT id, jobs FROM delivery_claims WHERE lease_until <= \(now) ORDER BY lease_until LIMIT 16
                    FOR UPDATE SKIP LOCKED) c, unnest(c.jobs) AS j(id)
                """
            ) { row in
                if expired.last != row.int(0) { expired.append(row.int(0)) }
                orphaned.append(row.int(1))
            }
            if !expired.isEmpty {
                try take(
                    """
                    SELECT id FROM deliveries
                    WHERE id = ANY(\(array: orphaned)::bigint[]) AND status = 'sending' AND lease_until <= \(now)
                    ORDER BY lease_until, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                    """, status: "sending")
                // A claim none of whose jobs are left to take over is done with.
                try db.execute(
                    """
                    DELETE FROM delivery_claims c WHERE c.id = ANY(\(array: expired)::bigint[]) AND NOT EXISTS (
                        SELECT 1 FROM deliveries d
                        WHERE d.id = ANY(c.jobs) AND d.status = 'sending' AND d.lease_until <= \(now))
                    """)
            }
            // Then the jobs due, taken from the due table (its rows deleted: a claim leaves no row version behind
            // in an index that later claims walk).
            if claimed.count < limit {
                try take(
                    """
                    DELETE FROM delivery_due WHERE ctid = ANY(ARRAY(
                        SELECT ctid FROM delivery_due WHERE due_at <= \(now) ORDER BY due_at, id
                        LIMIT \(limit - claimed.count) FOR UPDATE SKIP LOCKED))
                    RETURNING id
                    """, status: "queued")
            }
            return claimed
        }
        claimBook.withLock { book in
            for (job, claim) in claims { book.hold(job.id, in: claim, by: owner) }
        }
        return claims.map(\.job)
    }

    /// `update` (of `deliveries`, making jobs queued again) with the jobs it changes written back to the due table
    /// where the queue keeps one; its change count stays the jobs'.
    func requeued(_ update: SQLQuery) -> SQLQuery {
        guard database.dialect.queueTables else { return update }
        return SQLQuery(sql: DeliveryRecords.writingDue(update.sql), bindings: update.bindings)
    }

    /// Deletes the rows of this process's claims whose every job `answered` has now answered (by the claim's owner:
    /// a late answer from one whose lease was taken over counts for nothing).
    func forgetClaims(answered: [DeliveryCompletion], in db: any SQLConnection) throws {
        let done = claimBook.withLock { book in answered.compactMap { book.release($0.id, by: $0.leaseOwner) } }
        guard !done.isEmpty else { return }
        try db.execute("DELETE FROM delivery_claims WHERE id = ANY(\(array: done)::bigint[])")
    }

    func handBackClaims(owner: String, at now: Timestamp) throws -> Int {
        defer { changes.queueWritten() }
        let released = try database.write { db in
            let released = try db.execute(
                requeued(
                    """
                    UPDATE deliveries SET status = 'queued', attempts = attempts - 1, next_attempt_at = \(now),
                        lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                    WHERE id IN (SELECT unnest(jobs) FROM delivery_claims WHERE owner = \(owner))
                      AND status = 'sending' AND lease_owner = \(owner)
                    """))
            try db.execute("DELETE FROM delivery_claims WHERE owner = \(owner)")
            return released
        }
        claimBook.withLock { $0 = ClaimBook() }
        return released
    }

    func queueTablesDepth(at now: Timestamp) throws -> QueueDepth {
        try database.read { db in
            let row = try db.row(
                """
                SELECT
                    (SELECT COUNT(*) FROM delivery_due),
                    (SELECT COUNT(*) FROM delivery_due WHERE due_at <= \(now)),
                    (SELECT COUNT(*) FROM deliveries
                     WHERE id IN (SELECT unnest(jobs) FROM delivery_claims) AND status = 'sending')
                """)!
            return QueueDepth(queued: Int(row.int(0)), due: Int(row.int(1)), sending: Int(row.int(2)))
        }
    }
}

/// Which of this process's claims still hold jobs not yet answered, so that a claim's row goes with its last
/// answer. Kept in memory only: a claim a crash forgot is read again once its lease runs out, and deleted then.
struct ClaimBook {
    private var claimOf: [Int64: (claim: Int64, owner: String)] = [:]
    private var open: [Int64: Int] = [:]

    /// `job` was claimed in `claim` by `owner`.
    mutating func hold(_ job: Int64, in claim: Int64, by owner: String) {
        if let previous = claimOf.updateValue((claim, owner), forKey: job) { _ = close(previous.claim) }
        open[claim, default: 0] += 1
    }

    /// `owner` answered `job`; returns its claim if that was the claim's last job.
    mutating func release(_ job: Int64, by owner: String) -> Int64? {
        guard let held = claimOf[job], held.owner == owner else { return nil }
        claimOf[job] = nil
        return close(held.claim)
    }

    private mutating func close(_ claim: Int64) -> Int64? {
        let left = (open[claim] ?? 1) - 1
        if left > 0 {
            open[claim] = left
            return nil
        }
        open[claim] = nil
        return claim
    }
}
