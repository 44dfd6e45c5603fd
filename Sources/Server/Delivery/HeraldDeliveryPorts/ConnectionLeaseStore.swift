import HeraldModel
import Synchronization

/// Where the nodes sharing a database lease the connection slots of each credential (`ConnectionBudget`): the
/// database's in a server (`SQLConnectionLeases`), `MemoryConnectionLeaseStore` in tests. A slot is one connection
/// a node may keep open; a lease not renewed by its end is free for another node to take.
package protocol ConnectionLeaseStore: Sendable {
    /// Records that `owner` wants connections for `credential` until `until`; returns every node that wants them
    /// at `now` (`owner` included), in the same order on every node.
    func claimants(of credential: String, owner: String, until: Timestamp, at now: Timestamp) throws -> [String]
    /// Has `owner` hold `count` of `credential`'s slots numbered below `budget`, until `until`: renews those it
    /// holds, gives up the highest beyond `count` (and any at or above `budget`), takes free ones while it holds
    /// fewer. Returns how many it holds.
    func hold(_ count: Int, of credential: String, budget: Int, owner: String, until: Timestamp, at now: Timestamp)
        throws -> Int
    /// Gives up `owner`'s slots of `credential` and its claim to them.
    func release(_ credential: String, owner: String) throws
}

/// Connection leases kept in this process: for tests, several nodes sharing one instance.
package final class MemoryConnectionLeaseStore: ConnectionLeaseStore {
    private struct State {
        /// By credential: each slot's owner and lease end.
        var slots: [String: [Int: (owner: String, until: Timestamp)]] = [:]
        /// By credential: each claimant's claim end.
        var claimants: [String: [String: Timestamp]] = [:]
    }

    private let state = Mutex(State())

    /// No leases yet.
    package init() {}

    package func claimants(of credential: String, owner: String, until: Timestamp, at now: Timestamp) throws
        -> [String]
    {
        state.withLock { state in
            state.claimants[credential, default: [:]][owner] = until
            return state.claimants[credential, default: [:]].filter { $0.value > now }.keys.sorted()
        }
    }

    package func hold(
        _ count: Int, of credential: String, budget: Int, owner: String, until: Timestamp, at now: Timestamp
    ) throws -> Int {
        state.withLock { state in
            var slots = state.slots[credential, default: [:]]
            var mine = slots.filter { $0.value.owner == owner && $0.key < budget }.keys.sorted()
            for slot in slots.keys where slots[slot]!.owner == owner && !mine.prefix(max(0, count)).contains(slot) {
                slots[slot] = nil
            }
            mine = Array(mine.prefix(max(0, count)))
            for slot in mine { slots[slot]!.until = until }
            for slot in 0..<max(0, budget) where mine.count < count && (slots[slot].map { $0.until <= now } ?? true) {
                slots[slot] = (owner, until)
                mine.append(slot)
            }
            state.slots[credential] = slots
            return mine.count
        }
    }

    package func release(_ credential: String, owner: String) throws {
        state.withLock { state in
            state.slots[credential] = state.slots[credential]?.filter { $0.value.owner != owner }
            state.claimants[credential]?[owner] = nil
        }
    }

    /// The slots of `credential` leased at `now`, by number, with the node holding each.
    package func leases(of credential: String, at now: Timestamp) -> [(slot: Int, owner: String)] {
        state.withLock { state in
            (state.slots[credential] ?? [:]).filter { $0.value.until > now }.sorted { $0.key < $1.key }
                .map { ($0.key, $0.value.owner) }
        }
    }
}
