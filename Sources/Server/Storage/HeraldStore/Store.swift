import HeraldModel
import Synchronization

/// Everything Herald keeps, in one SQL database (SQLite, or PostgreSQL shared by several nodes): data access
/// only. The rules — what a check-in credits, who may move a device, which devices a notification goes to —
/// are the domain's (`HeraldDomain`), which works in transactions of small row operations:
///
/// ```swift
/// let entry = try store.transaction { tx in
///     guard let user = try tx.users.lock(businessID: business.id, id: userID) else { throw … }
///     return try tx.inbox.markRead(userID: user.id, ids: ids, at: now)
/// }
/// ```
///
/// Correctness under concurrency comes from the database: uniqueness by constraints (a violation is
/// `StoreError.conflict` naming the field), state changes as guarded updates that report whether they applied.
/// Transactions must not nest.
public final class Store: Sendable {
    /// The database underneath.
    package let database: any SQLDatabase
    /// The delivery queue over the same database: all the delivery engine sees.
    package let deliveryQueue: SQLDeliveryQueue
    private let makeUUID: @Sendable () -> String
    private let changes: ChangeSignals
    /// What carries commits between the nodes sharing the database, if several may (PostgreSQL's LISTEN/NOTIFY).
    package let changeFeed: (any ChangeFeed)?
    private let subscription: ChangeSubscription?

    /// A store over `database`, which must already be migrated (`Migrator.migrate(database, Schema.migrations, …)`).
    /// `makeUUID` makes each delivery job's `apns-id`. `feed` (PostgreSQL's LISTEN/NOTIFY, for a database several
    /// nodes share) carries every commit to every node: a node wakes its delivery engine at once when another
    /// enqueues, and its caches (sessions, businesses, inbox pages) see another node's change — a logout, say — as
    /// they see their own. Without one (SQLite: one process), only this process's commits count.
    package init(
        database: any SQLDatabase, feed: (any ChangeFeed)? = nil,
        makeUUID: @escaping @Sendable () -> String = { UUIDString.random() }
    ) throws {
        let changes = ChangeSignals()
        self.database = database
        self.makeUUID = makeUUID
        self.changes = changes
        self.changeFeed = feed
        deliveryQueue = SQLDeliveryQueue(database: database, changes: changes)
        subscription = try feed?.subscribe(.commits) { event in
            changes.bump()
            if event.payload == Self.jobsAdded || event.mayHaveMissedChanges { changes.deliveriesAdded() }
        }
    }

    private static let jobsAdded = "jobs"

    /// Runs `body` with a connection that sees committed data. It must only read.
    package func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.read { connection in
            try body(StoreTransaction(connection: connection, dialect: database.dialect, makeUUID: makeUUID))
        }
    }

    /// Runs `body` in one transaction without telling the caches or the other nodes of a change: for what nothing a
    /// cache holds depends on and each node reads again within seconds (FCM quota leases, congestion windows), like
    /// the delivery queue's own writes.
    func unannouncedTransaction<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.write { connection in
            try body(StoreTransaction(connection: connection, dialect: database.dialect, makeUUID: makeUUID))
        }
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws. Delivery jobs it wrote
    /// wake the delivery engine once it has committed.
    @discardableResult
    package func transaction<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        var enqueued = 0
        let result = try database.write { connection in
            let transaction = StoreTransaction(connection: connection, dialect: database.dialect, makeUUID: makeUUID)
            let result = try body(transaction)
            enqueued = transaction.deliveriesEnqueued
            try changeFeed?.publish(.commits, payload: enqueued > 0 ? Self.jobsAdded : "", in: connection)
            return result
        }
        changes.committed(deliveriesEnqueued: enqueued)
        return result
    }

    /// A number that changes whenever a change to the store is committed by this process, or reported by
    /// `noteChangeElsewhere()` (another node's, seen through the database's notifications). What was read while
    /// it had one value is current as long as it keeps that value: what caches are validated by.
    package var changeCount: UInt64 { changes.count }

    /// Another process committed a change (or may have, after a lost notification): invalidates what was cached.
    package func noteChangeElsewhere() { changes.bump() }

    /// Calls `observer` (on the committing thread, quickly) after every commit here, the delivery queue's
    /// included: what waits for the store to change (a test's condition, a live view) looks again then.
    package func onCommit(_ observer: @escaping @Sendable () -> Void) { changes.onCommit(observer) }
}

extension ChangeTopic {
    /// A store transaction committed (payload `jobs` when it enqueued deliveries).
    static let commits = ChangeTopic("commits")
}

/// What a store tells its readers about commits: a change counter for caches and a wake-up for the engine.
///
/// The delivery queue's own writes (claims, answers) do not count as changes: they touch nothing a cache holds
/// (sessions, users, businesses, inbox pages), and a campaign's stream of answers would otherwise empty those
/// caches continually.
final class ChangeSignals: Sendable {
    private let counter = Atomic<UInt64>(0)
    private let jobListeners = Mutex<[@Sendable () -> Void]>([])
    private let commitListeners = Mutex<[@Sendable () -> Void]>([])

    var count: UInt64 { counter.load(ordering: .acquiring) }

    func bump() { counter.add(1, ordering: .releasing) }

    func committed(deliveriesEnqueued: Int) {
        bump()
        if deliveriesEnqueued > 0 { deliveriesAdded() }
        queueWritten()
    }

    /// The delivery queue committed a write.
    func queueWritten() {
        for listener in commitListeners.withLock({ $0 }) { listener() }
    }

    func deliveriesAdded() {
        for listener in jobListeners.withLock({ $0 }) { listener() }
    }

    func onDeliveriesAdded(_ listener: @escaping @Sendable () -> Void) {
        jobListeners.withLock { $0.append(listener) }
    }

    func onCommit(_ listener: @escaping @Sendable () -> Void) {
        commitListeners.withLock { $0.append(listener) }
    }
}
