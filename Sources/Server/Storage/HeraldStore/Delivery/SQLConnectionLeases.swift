import HeraldModel

/// The connection slots of each credential, leased by the nodes sharing the database (`Schema.connectionLeases`):
/// row operations only; how many a node should hold is the delivery engine's `ConnectionBudget`'s decision.
///
/// Its writes are not announced to the other nodes (`Store.transaction` would empty their caches): nothing waits
/// for them, and every node writes here every few seconds.
///
/// ```swift
/// let leases = SQLConnectionLeases(database: store.database)
/// let nodes = try leases.claimants(of: "apns/1", owner: "node-a", until: now.adding(.seconds(30)), at: now)
/// let held = try leases.hold(2, of: "apns/1", budget: 4, owner: "node-a", until: now.adding(.seconds(30)), at: now)
/// ```
package struct SQLConnectionLeases: Sendable {
    let database: any SQLDatabase

    /// The leases kept in `database`.
    package init(database: any SQLDatabase) { self.database = database }

    /// Records that `owner` wants connections for `credential` until `until`, and returns every node that wants
    /// them at `now` (`owner` included), ordered by name: the same list on every node.
    package func claimants(of credential: String, owner: String, until: Timestamp, at now: Timestamp) throws
        -> [String]
    {
        try database.write { connection in
            try connection.execute(
                """
                INSERT INTO connection_claimants (credential, owner, expires_at) VALUES (\(credential), \(owner), \(until))
                ON CONFLICT (credential, owner) DO UPDATE SET expires_at = excluded.expires_at
                """)
            return try connection.rows(
                """
                SELECT owner FROM connection_claimants WHERE credential = \(credential) AND expires_at > \(now)
                ORDER BY owner
                """
            ).map { $0.text(0) }
        }
    }

    /// Has `owner` hold `count` of `credential`'s slots numbered below `budget`, until `until`: renews the ones it
    /// holds, gives up those at or above `budget` and its highest beyond `count`, and takes free ones (never held,
    /// or whose lease ran out by `now`) while it holds fewer. Returns how many it holds; fewer than `count` when
    /// other nodes hold the rest.
    package func hold(
        _ count: Int, of credential: String, budget: Int, owner: String, until: Timestamp, at now: Timestamp
    ) throws -> Int {
        try database.write { connection in
            try connection.execute(
                """
                DELETE FROM connection_leases
                WHERE credential = \(credential) AND owner = \(owner) AND slot >= \(budget)
                """)
            try connection.execute(
                """
                UPDATE connection_leases SET expires_at = \(until) WHERE credential = \(credential) AND owner = \(owner)
                """)
            let slots = try connection.rows(
                "SELECT slot, owner, expires_at FROM connection_leases WHERE credential = \(credential) ORDER BY slot"
            ).map { (slot: Int($0.int(0)), owner: $0.text(1), expiresAt: $0.timestamp(2)) }
            var mine = slots.filter { $0.owner == owner }.map(\.slot)
            let surplus = Array(mine.dropFirst(max(0, count)))
            if !surplus.isEmpty {
                try connection.execute(
                    """
                    DELETE FROM connection_leases
                    WHERE credential = \(credential) AND owner = \(owner) AND slot IN (\(list: surplus))
                    """)
            }
            mine = Array(mine.prefix(max(0, count)))
            let taken = Set(slots.filter { $0.expiresAt > now }.map(\.slot))
            for slot in 0..<max(0, budget) where mine.count < count && !taken.contains(slot) {
                // Another node may take the same slot at once: the guarded upsert lets one of them have it.
                let took = try connection.execute(
                    """
                    INSERT INTO connection_leases (credential, slot, owner, expires_at)
                    VALUES (\(credential), \(slot), \(owner), \(until))
                    ON CONFLICT (credential, slot) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
                    WHERE connection_leases.expires_at <= \(now) OR connection_leases.owner = excluded.owner
                    """)
                if took == 1 { mine.append(slot) }
            }
            return mine.count
        }
    }

    /// Gives up `owner`'s slots of `credential` and its claim to them.
    package func release(_ credential: String, owner: String) throws {
        try database.write { connection in
            try connection.execute(
                "DELETE FROM connection_leases WHERE credential = \(credential) AND owner = \(owner)")
            try connection.execute(
                "DELETE FROM connection_claimants WHERE credential = \(credential) AND owner = \(owner)")
        }
    }

    /// The slots of `credential` leased at `now`, by number, with the node holding each.
    package func leases(of credential: String, at now: Timestamp) throws -> [(slot: Int, owner: String)] {
        try database.read { connection in
            try connection.rows(
                """
                SELECT slot, owner FROM connection_leases WHERE credential = \(credential) AND expires_at > \(now)
                ORDER BY slot
                """
            ).map { (Int($0.int(0)), $0.text(1)) }
        }
    }
}
