import HeraldCrypto
import HeraldAPI

extension LiveHerald {
    /// What the nodes of one test fleet share: a new schema on the test PostgreSQL, the secret key and the admin
    /// token. Each node is a `LiveHerald` whose configuration `join`s it.
    ///
    /// ```swift
    /// let fleet = try LiveHerald.Fleet()
    /// let (first, second) = (try LiveHerald { fleet.join(&$0) }, try LiveHerald { fleet.join(&$0) })
    /// ```
    public struct Fleet: Sendable {
        /// The database every node opens: the test server, its connections in the fleet's own schema.
        public let databaseURL: String
        /// `HERALD_SECRET_KEY`, the same on every node (each opens what another sealed).
        public let secretKey: String
        /// The admin token of every node.
        public let adminToken: String

        /// A new fleet, in a new schema; fails when no test PostgreSQL is set (`TestPostgres.requireURL`).
        public init() throws {
            let schema = try TestPostgres.makeSchema()
            let base = try TestPostgres.requireURL()
            databaseURL = base + (base.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
            secretKey = Hex.encode(SecureRandom.bytes(count: 32))
            adminToken = "hadm_" + Hex.encode(SecureRandom.bytes(count: 16))
        }

        /// Makes `configuration` a node of this fleet.
        public func join(_ configuration: inout HeraldConfiguration) {
            configuration.database = databaseURL
            configuration.secretKey = secretKey
            configuration.adminToken = adminToken
        }
    }
}
