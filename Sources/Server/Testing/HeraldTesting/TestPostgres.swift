import Foundation
import HeraldPostgres
import HeraldStore

/// The PostgreSQL that tests run against: the one `HERALD_TEST_POSTGRES_URL` names (`scripts/test` starts a
/// throwaway cluster and sets it; so does `scripts/postgres swift test …`), each test in a schema of its own.
///
/// Without the URL the PostgreSQL tests fail, saying how to get one — unless `HERALD_TEST_POSTGRES=off` turns them
/// off on purpose (they are then left out, and say so as skipped where they can).
public enum TestPostgres {
    /// The server's URL, if set.
    public static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }()

    /// The directory of the throwaway cluster `scripts/postgres` started, which holds its unix socket (unset for a
    /// server of one's own).
    public static let clusterDirectory: String? = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_DIR"]

    /// Whether the PostgreSQL tests were turned off (`HERALD_TEST_POSTGRES=off`).
    public static let isOff = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] == "off"

    /// Why there is no server to test against.
    public static let missing = StoreError(
        .database,
        "HERALD_TEST_POSTGRES_URL is not set: run the tests through scripts/test, or as `scripts/postgres swift test …` "
            + "(a throwaway cluster), or set HERALD_TEST_POSTGRES=off to leave the PostgreSQL tests out")

    /// The URL, or the error saying how to get one.
    public static func requireURL() throws -> String {
        guard let url else { throw missing }
        return url
    }

    /// A new, empty schema; returns its name.
    public static func makeSchema() throws -> String {
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresDatabase(url: try requireURL(), options: .init(poolSize: 1))
        try admin.write { db in try db.executeScript("CREATE SCHEMA \(schema)") }
        return schema
    }

    /// The libpq parameters that put a connection in `schema`.
    public static func parameters(schema: String) -> [String: String] {
        ["options": "-c search_path=\(schema)"]
    }

    /// A database in a new, empty schema of its own.
    public static func database(
        schema: String? = nil, options: PostgresDatabase.Options = .init(poolSize: 4)
    ) throws -> PostgresDatabase {
        var options = options
        options.parameters.merge(parameters(schema: try schema ?? makeSchema())) { _, new in new }
        return try PostgresDatabase(url: try requireURL(), options: options)
    }
}
