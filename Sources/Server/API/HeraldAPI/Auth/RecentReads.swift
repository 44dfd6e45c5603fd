import HeraldModel
import Synchronization

/// Values read from the store, reused while no change to it is committed here or reported from another node (the
/// domain's `AccessService.changeCount` stays the same) and for at most `lifetime`.
final class RecentReads<Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let changeCount: UInt64
        let expires: Timestamp
    }
    private let lifetime: Duration
    private let lock = Mutex<[String: Entry]>([:])
    private let limit = 10_000

    init(lifetime: Duration) { self.lifetime = lifetime }

    /// The value for `key`: a recent one, or what `read` answers now (nil answers are not kept). `changeCount` is
    /// taken before reading: a write committed meanwhile makes the entry stale at once, never the reverse.
    func value(for key: String, changeCount: UInt64, clock: WallClock, read: () throws -> Value?) rethrows -> Value? {
        let now = clock.now()
        if let hit = lock.withLock({ $0[key] }), hit.changeCount == changeCount, hit.expires > now { return hit.value }
        guard let value = try read() else { return nil }
        let entry = Entry(value: value, changeCount: changeCount, expires: now.adding(lifetime))
        lock.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
        return value
    }
}
