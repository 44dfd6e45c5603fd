extension PostgresDatabase {
    /// How a `PostgresDatabase` connects and pools. Every value has a default.
    public struct Options: Sendable {
        /// Most connections open at once; each `read` or `write` holds one while it runs. Default 10.
        package var poolSize: Int
        /// How long a `read` or `write` waits for a connection to come free before failing. Default 30 s.
        package var acquireTimeout: Duration
        /// Whether each `read` runs in one read-only REPEATABLE READ transaction (its statements see one snapshot)
        /// instead of statement by statement. Default false: reads are single statements, or tolerate the
        /// difference, as on SQLite; true costs two round trips per read.
        package var snapshotReads: Bool
        /// libpq connection parameters applied over the URL's (`options`, `sslmode`, `connect_timeout`,
        /// `application_name`…). Herald's defaults under the URL: `application_name=herald`, `connect_timeout=10`,
        /// `options=-c random_page_cost=1.1` (a cached working set: index look-ups over hash joins of whole tables);
        /// `client_encoding` is always UTF8.
        package var parameters: [String: String]

        /// Options; every argument defaulted.
        public init(
            poolSize: Int = 10, acquireTimeout: Duration = .seconds(30), snapshotReads: Bool = false,
            parameters: [String: String] = [:]
        ) {
            self.poolSize = poolSize
            self.acquireTimeout = acquireTimeout
            self.snapshotReads = snapshotReads
            self.parameters = parameters
        }
    }
}
