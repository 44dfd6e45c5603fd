extension Schema {
    /// The fleet's connection budget per credential (`--provider-connections` for all nodes on one database):
    /// `connection_leases` holds one row per slot a node holds (a slot is one connection it may keep open), until
    /// `expires_at` unless renewed, so a dead node's slots are taken by the others; `connection_claimants` holds the
    /// nodes that want connections for a credential now, which the budget is shared among.
    static let connectionLeases = Migration(version: 19, name: "connection_leases") { _ in
        [
            """
            CREATE TABLE connection_leases (
                credential TEXT NOT NULL, slot BIGINT NOT NULL, owner TEXT NOT NULL, expires_at BIGINT NOT NULL,
                PRIMARY KEY (credential, slot))
            """,
            """
            CREATE TABLE connection_claimants (
                credential TEXT NOT NULL, owner TEXT NOT NULL, expires_at BIGINT NOT NULL,
                PRIMARY KEY (credential, owner))
            """,
        ]
    }
}
