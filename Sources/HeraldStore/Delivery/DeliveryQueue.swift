import HeraldModel

/// The durable delivery queue as the delivery engine sees it: jobs are rows claimed under a lease, answered
/// in batches, handed back on a graceful stop. A dead node's leases run out and its jobs are claimed again.
public protocol DeliveryQueue: Sendable {
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
    func brokenCredentials() throws -> [PushCredential]
    /// Marks a business's credential broken, unless it was replaced after `observedAt`; returns whether it did.
    func markCredentialBroken(businessID: Int64, platform: PushPlatform, reason: String, observedAt: Timestamp) throws
        -> Bool
    /// Makes every queued job of `businessID` on `platform` due at `dueAt` (its credential was replaced).
    func reschedule(businessID: Int64, platform: PushPlatform, dueAt: Timestamp) throws
}
