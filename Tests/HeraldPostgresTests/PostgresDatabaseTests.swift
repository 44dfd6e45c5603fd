import Dispatch
import Foundation
import HeraldPostgres
import HeraldStore
import HeraldTesting
import Testing

@Suite("PostgreSQL database: pool, transactions, migrations", postgresTests)
struct PostgresDatabaseTests {
    /// Ends the server session `pid` (as an administrator or a restarted server would), waiting until it is gone.
    static func terminate(_ pid: Int64) throws {
        let admin = try TestPostgres.database(options: .init(poolSize: 1))
        #expect(try admin.read { db in try db.row("SELECT pg_terminate_backend(\(pid)::int, 30000)")?.bool(0) } == true)
    }

    static func backend(_ db: any SQLConnection) throws -> Int64 { try db.scalar("SELECT pg_backend_pid()") }

    /// Herald's sessions price index look-ups as cached (`random_page_cost` 1.1, not 4) unless the URL says
    /// otherwise: with the default, a claim of a few hundred jobs scanned whole tables (bench/scale/throughput).
    @Test func sessionsPriceIndexLookUpsAsCached() throws {
        let url = try TestPostgres.requireURL()
        let plain = try PostgresDatabase(url: url, options: .init(poolSize: 1))
        #expect(try plain.read { db in try db.row("SHOW random_page_cost")?.text(0) } == "1.1")
        let separator = url.contains("?") ? "&" : "?"
        let chosen = try PostgresDatabase(
            url: url + separator + "options=-c%20random_page_cost%3D2", options: .init(poolSize: 1))
        #expect(
            try chosen.read { db in try db.row("SHOW random_page_cost")?.text(0) } == "2", "the URL's own options win")
    }

    @Test func connectionsAreMadeWhenNeededAndReused() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 3))
        #expect(database.openConnections == 0)
        let first = try database.read(Self.backend)
        #expect(try database.read(Self.backend) == first)
        #expect(try database.write(Self.backend) == first)
        #expect(database.openConnections == 1)
        // Nested use takes a second connection.
        let (outer, inner) = try database.read { db in (try Self.backend(db), try database.read(Self.backend)) }
        #expect(outer != inner)
        #expect(database.openConnections == 2)
        database.closeIdleConnections()
        #expect(database.openConnections == 0)
    }

    /// The forms libpq reads besides postgres://host URLs: a unix socket given as `host=` (in a URL's query, as
    /// key=value pairs, or percent-encoded as the URL's host). The throwaway cluster trusts its socket's users.
    @Test(.enabled(if: TestPostgres.clusterDirectory != nil, "needs the throwaway cluster's socket (scripts/postgres)"))
    func unixSocketFormsConnect() throws {
        let directory = try #require(TestPostgres.clusterDirectory)
        let port = try TestPostgres.database(options: .init(poolSize: 1)).read { db in
            try db.row("SHOW port")?.text(0) ?? ""
        }
        let encoded = try #require(directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        for url in [
            "postgresql://herald@/herald?host=\(directory)&port=\(port)",
            "host=\(directory) port=\(port) user=herald dbname=herald",
            "postgresql://herald@\(encoded):\(port)/herald",
        ] {
            let database = try PostgresDatabase(url: url)
            #expect(
                try database.read { db in try db.row("SELECT inet_server_addr() IS NULL")?.bool(0) } == true, "\(url)")
        }
    }

    @Test func aConnectionEndedWhileIdleIsReplaced() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 1))
        try database.write { db in try db.executeScript("CREATE TABLE t (v BIGINT)") }
        let first = try database.read(Self.backend)
        try Self.terminate(first)
        // The read finds the connection dead at its first statement and runs again on a new one.
        let second = try database.read(Self.backend)
        #expect(second != first)
        try Self.terminate(second)
        // So does a write, whose BEGIN finds it.
        try database.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try database.read { db in try db.scalar("SELECT COUNT(*) FROM t") } == 1)
        #expect(database.openConnections == 1)
    }

    @Test func aConnectionLostInsideAWriteFailsItAndIsReplaced() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 1))
        try database.write { db in try db.executeScript("CREATE TABLE t (v BIGINT)") }
        do {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try Self.terminate(try Self.backend(db))
                try db.execute("INSERT INTO t VALUES (2)")
            }
            Issue.record("a write on a terminated connection succeeded")
        } catch let error as StoreError {
            #expect(error.code == .database)
        }
        #expect(database.committedWriteCount == 1)
        try database.write { db in try db.execute("INSERT INTO t VALUES (3)") }
        #expect(try database.read { db in try db.rows("SELECT v FROM t").map { $0.int(0) } } == [3])
        #expect(database.openConnections == 1)
    }

    /// Two threads, each on its own pooled connection: increments by `UPDATE … v + 1` and read-then-write with
    /// `FOR UPDATE` both lose nothing.
    @Test func concurrentWritesFromTwoThreads() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 2))
        try database.write { db in
            try db.executeScript(
                "CREATE TABLE counter (id BIGINT PRIMARY KEY, v BIGINT); INSERT INTO counter VALUES (1, 0), (2, 0)")
        }
        let writes = 150
        let failures = Recorder<String>()
        concurrently(2) { _ in
            do {
                for _ in 0..<writes {
                    try database.write { db in
                        try db.execute("UPDATE counter SET v = v + 1 WHERE id = 1")
                        let value = try db.scalar(
                            "SELECT v FROM counter WHERE id = 2 \(raw: database.dialect.forUpdate)")
                        try db.execute("UPDATE counter SET v = \(value + 1) WHERE id = 2")
                    }
                }
            } catch {
                failures.record("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        let values = try database.read { db in try db.rows("SELECT v FROM counter ORDER BY id").map { $0.int(0) } }
        #expect(values == [Int64(2 * writes), Int64(2 * writes)])
        #expect(database.committedWriteCount == UInt64(2 * writes + 1))
    }

    @Test func snapshotReadsSeeOneSnapshot() throws {
        let schema = try TestPostgres.makeSchema()
        let writer = try TestPostgres.database(schema: schema)
        let reader = try TestPostgres.database(schema: schema, options: .init(poolSize: 1, snapshotReads: true))
        try writer.write { db in try db.executeScript("CREATE TABLE t (v BIGINT); INSERT INTO t VALUES (1)") }
        let (before, after) = try reader.read { db in
            let before = try db.scalar("SELECT COUNT(*) FROM t")
            try writer.write { db in try db.execute("INSERT INTO t VALUES (2)") }
            return (before, try db.scalar("SELECT COUNT(*) FROM t"))
        }
        #expect(before == 1)
        #expect(after == 1)
        #expect(try reader.read { db in try db.scalar("SELECT COUNT(*) FROM t") } == 2)
        // A snapshot read is read-only.
        #expect(throws: StoreError.self) { try reader.read { db in try db.execute("INSERT INTO t VALUES (3)") } }
    }

    @Test func everyMigrationRunsOnPostgreSQL() throws {
        let database = try TestPostgres.database()
        #expect(try Migrator.migrate(database, Schema.migrations, at: 5) == Schema.migrations.map(\.version))
        #expect(try Migrator.migrate(database, Schema.migrations, at: 6) == [])
        let indexes = try database.read { db in
            try db.rows("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1").map {
                $0.text(0)
            }
        }
        for name in ["users_phone", "rewards_code", "devices_token", "delivery_due_time", "delivery_claims_lease"] {
            #expect(indexes.contains(name))
        }
        // The queue's due and leased jobs are found through its own tables (Schema.queueTables), not these.
        for name in ["deliveries_owner", "deliveries_business", "deliveries_due", "deliveries_leased"] {
            #expect(!indexes.contains(name))
        }
        // A database newer than the program is refused.
        let older = Array(Schema.migrations.dropLast())
        #expect(throws: StoreError.self) { try Migrator.migrate(database, older, at: 7) }
    }

    /// Four "nodes" (databases with their own connections) migrate one empty schema at once: the advisory lock
    /// makes one apply everything and the others find it done.
    @Test func nodesStartingAtOnceMigrateOnce() throws {
        let schema = try TestPostgres.makeSchema()
        let nodes = try (0..<4).map { _ in try TestPostgres.database(schema: schema, options: .init(poolSize: 1)) }
        for node in nodes { _ = try node.read(PostgresDatabaseTests.backend) }  // connected before the start line
        let outcomes = Recorder<Result<[Int], StoreError>>()
        concurrently(nodes.count) { index in
            do {
                outcomes.record(.success(try Migrator.migrate(nodes[index], Schema.migrations, at: 1)))
            } catch {
                outcomes.record(.failure(error as? StoreError ?? StoreError(.database, "\(error)")))
            }
        }
        let applied = outcomes.all.compactMap { try? $0.get() }
        #expect(applied.count == nodes.count, "\(outcomes.all)")
        #expect(applied.filter { !$0.isEmpty } == [Schema.migrations.map(\.version)])
        #expect(
            try nodes[0].read { db in try db.scalar("SELECT COUNT(*) FROM schema_migrations") }
                == Int64(Schema.migrations.count))
    }
}
