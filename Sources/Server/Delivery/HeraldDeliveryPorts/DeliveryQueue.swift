import HeraldModel

/// The durable delivery queue as the delivery engine sees it: jobs are rows claimed under a lease, answered
/// in batches, handed back on a graceful stop. A dead node's leases run out and its jobs are claimed again.
///
/// The domain writes jobs (`NotificationService.publish`); the engine claims and answers them through this
/// protocol, which the store implements over its database. Besides moving jobs, an implementation keeps three
/// rules that belong to the queue because they must hold at the moment a job is claimed or answered, in the same
/// transaction:
///
/// - **The badge.** A claim reads, with each job, its recipient's unread count at that moment
///   (`ClaimedDelivery.badge`): the count of the user's visible, unread, undeleted inbox entries.
/// - **Campaign counters.** Recording an answer counts it for the job's campaign (`delivered`, or `failed` for a
///   failure or a pruned token) in the same transaction, so a report never counts an answer twice or misses one.
/// - **Token revival.** A pruned job clears its device's token only if it is still the token sent and was not
///   registered again after the provider saw it die (`DeliveryCompletion.Outcome.pruned`'s `unregisteredAt`).
package protocol DeliveryQueue: Sendable {
    /// Claims up to `limit` due jobs (queued and due, or whose lease ran out) for `owner` until `leaseUntil`.
    func claim(owner: String, limit: Int, leaseUntil: Timestamp, at now: Timestamp) throws -> [ClaimedDelivery]
    /// Records attempts' outcomes; reports from owners who lost their lease are ignored. Returns how many applied.
    @discardableResult
    func record(_ completions: [DeliveryCompletion], at now: Timestamp) throws -> Int
    /// Hands `owner`'s leased jobs back to the queue, due now, their unfinished attempt not counted.
    @discardableResult
    func handBack(owner: String, at now: Timestamp) throws -> Int
    /// Calls `wake` (on any thread, quickly) whenever jobs may have become due: enqueued here, or on another node.
    func onJobsAdded(_ wake: @escaping @Sendable () -> Void)

    /// Counts for `/metrics`.
    func depth(at now: Timestamp) throws -> QueueDepth
    /// Every credential marked broken.
    func brokenCredentials() throws -> [BrokenCredential]
    /// Marks a business's credential broken, unless it was replaced after `observedAt`; returns whether it did.
    func markCredentialBroken(businessID: Int64, platform: PushPlatform, reason: String, observedAt: Timestamp) throws
        -> Bool
    /// Makes every queued job of `businessID` on `platform` due at `dueAt` (its credential was replaced).
    func reschedule(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws
}
