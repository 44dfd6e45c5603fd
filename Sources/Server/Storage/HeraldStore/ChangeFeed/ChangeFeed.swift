/// Wakes this node when any node sharing the database changed something it waits on or caches: the delivery queue
/// (new jobs to claim), a user's sessions (revoked: drop the cached ones).
///
/// A change is published inside the write transaction that makes it and heard only if that transaction commits,
/// after it commits, so a subscriber that reads on hearing it sees the change. Hearing is a hint, not a record:
/// events may be merged or, when the feed lost its connection, missed — then the subscriber hears one event with
/// `mayHaveMissedChanges` and re-checks everything the topic covers.
///
/// ```swift
/// let subscription = try feed.subscribe(.deliveryQueue) { _ in engine.wake() }
/// try database.write { db in
///     try db.execute("INSERT INTO deliveries …")
///     try feed.publish(.deliveryQueue, payload: "", in: db)
/// }
/// subscription.cancel()
/// ```
/// `LocalChangeFeed` serves one process (SQLite, memory); HeraldPostgres's `PostgresChangeFeed` serves every node
/// on one PostgreSQL database (LISTEN/NOTIFY).
package protocol ChangeFeed: Sendable {
    /// Announces that `topic` changed, as part of the write transaction `transaction` is in: subscribers (on every
    /// node) hear it once the transaction commits, never if it rolls back. `payload` (at most 7,000 bytes) says
    /// what changed, an id for instance; it is not secret-safe: never put a token or a secret in it.
    func publish(_ topic: ChangeTopic, payload: String, in transaction: any SQLConnection) throws
    /// Calls `handler` for every change of `topic` committed after this returns, on a thread of the feed's (keep it
    /// short, and do not publish from it), until the subscription is cancelled.
    func subscribe(_ topic: ChangeTopic, _ handler: @escaping @Sendable (ChangeEvent) -> Void) throws
        -> ChangeSubscription
}
