import Foundation
import HeraldPostgres
import HeraldStore
import HeraldTesting
import Testing

@Suite("PostgreSQL errors", postgresTests)
struct PostgresErrorTests {
    static let secret = "s3cret-VALUE-4242"

    /// A migrated schema with a business and a user, for constraint violations.
    static func migrated() throws -> (PostgresDatabase, business: Int64) {
        let database = try TestPostgres.database()
        try Migrator.migrate(database, Schema.migrations, at: 0)
        let business = try database.write { db in
            try db.scalar(
                """
                INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at)
                VALUES ('B', 'client', \([UInt8]([1])), 'pos', '{}', 0) RETURNING id
                """)
        }
        try addUser(database, business: business, email: "ann@example.com", phone: "555")
        return (database, business)
    }

    static func addUser(_ database: PostgresDatabase, business: Int64, email: String, phone: String?) throws {
        try database.write { db in
            try db.execute(
                """
                INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at)
                VALUES (\(business), \(email), 'h', 'A', 'B', \(phone), 0, 0)
                """)
        }
    }

    static func storeError(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("not a StoreError: \(error)")
            return nil
        }
    }

    @Test func uniqueViolationsAreConflictsOnTheirField() throws {
        let (database, business) = try Self.migrated()
        let email = Self.storeError {
            try Self.addUser(database, business: business, email: "ann@example.com", phone: nil)
        }
        #expect(email?.code == .conflict)
        #expect(email?.field == "email")
        #expect(email.map { !$0.message.contains("ann@example.com") } == true)
        let phone = Self.storeError {
            try Self.addUser(database, business: business, email: "bob@example.com", phone: "555")
        }
        #expect(phone?.code == .conflict)
        #expect(phone?.field == "phone")
        let client = Self.storeError {
            _ = try database.write { db in
                try db.execute(
                    """
                    INSERT INTO businesses (name, client_id, sealed_secret, pos_key_hash, settings, created_at)
                    VALUES ('C', 'client', \([UInt8]()), 'other', '{}', 0)
                    """)
            }
        }
        #expect(client?.field == "client")
        // The failed transactions left nothing behind.
        #expect(try database.read { db in try db.scalar("SELECT COUNT(*) FROM users") } == 1)
    }

    @Test func syntaxErrorsAreDatabaseErrorsWithoutValues() throws {
        let database = try TestPostgres.database()
        let error = Self.storeError {
            _ = try database.read { db in try db.execute("SELEC \(Self.secret) FROM nowhere") }
        }
        #expect(error?.code == .database)
        #expect(error?.message.contains("42601") == true)
        #expect(error.map { !$0.message.contains(Self.secret) && !"\($0)".contains(Self.secret) } == true)
    }

    /// PostgreSQL's own text for bad input quotes it (`invalid input syntax for type bigint: "…"`): never shown.
    @Test func dataErrorsDoNotQuoteTheValue() throws {
        let database = try TestPostgres.database()
        for query: SQLQuery in [
            "SELECT CAST(\(Self.secret) AS BIGINT)", "SELECT CAST(\(Self.secret) AS DATE)",
            "SELECT CAST(\(Self.secret) AS NUMERIC) / 0",
        ] {
            let error = Self.storeError { _ = try database.read { db in try db.rows(query) } }
            #expect(error?.code == .database)
            #expect(error?.message.contains("PostgreSQL 22") == true, "\(String(describing: error))")
            #expect(error.map { !"\($0)".contains(Self.secret) } == true)
        }
        // A check constraint's DETAIL lists the failing row: the message does not.
        try database.write { db in try db.executeScript("CREATE TABLE c (v TEXT CHECK (length(v) < 5))") }
        let check = Self.storeError {
            _ = try database.write { db in try db.execute("INSERT INTO c VALUES (\(Self.secret))") }
        }
        #expect(check?.code == .database)
        #expect(check.map { !"\($0)".contains(Self.secret) } == true)
    }

    @Test func connectionErrorsDoNotShowThePassword() throws {
        let url = try TestPostgres.requireURL()
        let password = try #require(URLComponents(string: url)?.password)
        let wrong = url.replacingOccurrences(of: ":\(password)@", with: ":wrong-\(Self.secret)@")
        let refused = Self.storeError { _ = try PostgresDatabase(url: wrong).read { db in try db.scalar("SELECT 1") } }
        #expect(refused?.code == .database)
        #expect(refused?.message.contains("password authentication failed") == true, "\(String(describing: refused))")
        #expect(refused.map { !"\($0)".contains(Self.secret) } == true)

        let closedPort = "postgres://herald:\(Self.secret)@127.0.0.1:1/herald?connect_timeout=5"
        let unreachable = Self.storeError {
            _ = try PostgresDatabase(url: closedPort).read { db in try db.scalar("SELECT 1") }
        }
        #expect(unreachable?.code == .database)
        #expect(unreachable.map { !"\($0)".contains(Self.secret) } == true)

        // A URL libpq cannot read: its complaint quotes the fragment, which is hidden.
        let unreadable = Self.storeError { _ = try PostgresDatabase(url: "postgres://u:bad%zz\(Self.secret)@h/db") }
        #expect(unreadable?.code == .database)
        #expect(unreadable.map { !"\($0)".contains(Self.secret) } == true, "\(String(describing: unreadable))")
    }

    @Test func aFailedStatementRollsTheWriteBack() throws {
        let database = try TestPostgres.database()
        try database.write { db in try db.executeScript("CREATE TABLE t (v BIGINT UNIQUE)") }
        let error = Self.storeError {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.code == .conflict)
        // A transaction whose failed statement was caught and ignored cannot commit: PostgreSQL failed it whole.
        let swallowed = Self.storeError {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (2)")
                _ = try? db.execute("INSERT INTO t VALUES (2)")
            }
        }
        #expect(swallowed?.code == .database)
        #expect(try database.read { db in try db.scalar("SELECT COUNT(*) FROM t") } == 0)
        #expect(database.committedWriteCount == 1)
    }

    /// Two transactions that lock two rows in opposite orders: PostgreSQL breaks the deadlock by failing one,
    /// which is a retryable error; the other commits.
    @Test func deadlocksAreRetryable() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 2))
        try database.write { db in
            try db.executeScript(
                "CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT); INSERT INTO t VALUES (1, 0), (2, 0)")
        }
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let errors = Recorder<StoreError?>()
        let orders = [(Int64(1), Int64(2), first, second), (2, 1, second, first)]
        concurrently(2) { index in
            let (mine, theirs, locked, awaited) = orders[index]
            errors.record(
                Self.storeError {
                    try database.write { db in
                        try db.execute("UPDATE t SET v = v + 1 WHERE id = \(mine)")
                        locked.signal()
                        awaited.wait()
                        try db.execute("UPDATE t SET v = v + 1 WHERE id = \(theirs)")
                    }
                })
        }
        let outcomes = errors.all
        #expect(outcomes.count == 2)
        #expect(outcomes.compactMap { $0 }.map(\.code) == [.retryable])
        #expect(try database.read { db in try db.scalar("SELECT SUM(v) FROM t") } == 2)
    }

    @Test func codesMapToStoreErrors() {
        #expect(PostgresError(.serializationFailure, "x").storeError.code == .retryable)
        #expect(PostgresError(.deadlockDetected, "x").storeError.code == .retryable)
        #expect(PostgresError(.syntaxError, "x").storeError.code == .database)
        let unique = PostgresError(.uniqueViolation, "dup", constraint: "checkins_business_id_transaction_id_key")
        #expect(unique.storeError == StoreError(.conflict, field: "transaction_id", "transaction_id already taken"))
        #expect(
            PostgresError(.uniqueViolation, "dup", constraint: "rewards_code").storeError.field == "redemption_code")
        #expect(PostgresError(.uniqueViolation, "dup", constraint: "mystery").storeError.field == nil)
        #expect(PostgresError(.adminShutdown, "x").isConnectionLost)
        #expect(PostgresError(.connectionFailure, "x").isConnectionLost)
        #expect(!PostgresError(.uniqueViolation, "x").isConnectionLost)
    }
}
