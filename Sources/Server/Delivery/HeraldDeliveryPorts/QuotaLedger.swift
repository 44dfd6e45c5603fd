import HeraldModel
import Synchronization

/// A stretch of a credential's send quota that one node may spend alone: its sends from `start` to `end`, at the pace
/// of `perMinute` a minute (`QuotaAllowance` spends it).
package struct QuotaGrant: Sendable, Equatable {
    /// When the stretch starts (at the earliest, now).
    package var start: Timestamp
    /// When it ends.
    package var end: Timestamp
    /// The quota it is spent at (the project's override, or the default asked with).
    package var perMinute: Int

    /// A grant.
    package init(start: Timestamp, end: Timestamp, perMinute: Int) {
        self.start = start
        self.end = end
        self.perMinute = perMinute
    }
}

/// Where the nodes share a send quota (FCM's, per Firebase project): each leases the next stretch of the project's
/// time, a second or so, and spends it alone, so that nodes together keep to the quota with one round trip to the
/// database a second, not one a push. The database's in a server (`fcm_quotas`); `MemoryQuotaLedger` for one process.
package protocol QuotaLedger: Sendable {
    /// Leases the next `duration` of the send time of `businessID`'s FCM project at `now`; its quota is the
    /// project's override, else `defaultPerMinute`. Nil when the business has no FCM credential.
    func lease(businessID: Int64, duration: Duration, defaultPerMinute: Int, at now: Timestamp) throws -> QuotaGrant?
}

/// A quota ledger of this process alone, one quota per business (it does not know their projects).
package final class MemoryQuotaLedger: QuotaLedger {
    private let nextFree = Mutex<[Int64: Timestamp]>([:])

    /// An empty ledger.
    package init() {}

    package func lease(businessID: Int64, duration: Duration, defaultPerMinute: Int, at now: Timestamp) throws
        -> QuotaGrant?
    {
        nextFree.withLock { nextFree in
            let start = max(now, nextFree[businessID] ?? now)
            let end = start.adding(duration)
            nextFree[businessID] = end
            return QuotaGrant(start: start, end: end, perMinute: defaultPerMinute)
        }
    }
}
