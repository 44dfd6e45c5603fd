import HeraldDelivery
import HeraldModel
import HeraldStore

/// The connection leases kept in the database (`SQLConnectionLeases`), shared by the nodes on it.
public struct StoredConnectionLeases: ConnectionLeaseStore {
    let leases: SQLConnectionLeases

    /// The leases in `store`'s database.
    public init(store: Store) { leases = SQLConnectionLeases(database: store.database) }

    public func claimants(of credential: String, owner: String, until: Timestamp, at now: Timestamp) throws
        -> [String]
    {
        try leases.claimants(of: credential, owner: owner, until: until, at: now)
    }

    public func hold(
        _ count: Int, of credential: String, budget: Int, owner: String, until: Timestamp, at now: Timestamp
    ) throws -> Int {
        try leases.hold(count, of: credential, budget: budget, owner: owner, until: until, at: now)
    }

    public func release(_ credential: String, owner: String) throws {
        try leases.release(credential, owner: owner)
    }
}
