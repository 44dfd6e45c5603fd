import HeraldPostgres
import HeraldStore
import HeraldTesting
import Testing

@Suite("PostgreSQL connection: statements and values", postgresTests)
struct PostgresConnectionTests {
    static let integers: [Int64] = [0, 1, -1, 42, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
    static let reals: [Double] = [
        0, -0.0, 0.1, -2.5, 1e308, -1e-308, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 1 / 3,
        .infinity, -.infinity,
    ]
    static let texts: [String] = [
        "", "plain", "héllo wörld", "日本語のテキスト", "emoji 🎉👩‍👩‍👧", "quote ' and \" and \\ backslash", "? and $1 and %s",
        "'); DROP TABLE v; --", String(repeating: "long ", count: 2000),
    ]
    static let blobs: [[UInt8]] = [[], [0], [0, 0, 0], [0, 1, 0, 255], Array(0...255), [92, 120, 48, 48]]

    /// Every value kind, and NULL, into typed columns and back, through a statement prepared with values (sent in
    /// binary, with their own types).
    @Test func everyValueRoundTrips() throws {
        let database = try TestPostgres.database()
        try database.write { db in
            try db.executeScript(
                "CREATE TABLE v (id BIGINT PRIMARY KEY, i BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA)")
        }
        var expected: [[SQLValue]] = []
        let count = max(Self.integers.count, Self.reals.count, Self.texts.count, Self.blobs.count)
        try database.write { db in
            for index in 0..<count {
                let row: [SQLValue] = [
                    .integer(Int64(index)), .integer(Self.integers[index % Self.integers.count]),
                    .real(Self.reals[index % Self.reals.count]), .text(Self.texts[index % Self.texts.count]),
                    .blob(Self.blobs[index % Self.blobs.count]),
                ]
                #expect(
                    try db.execute(
                        "INSERT INTO v (id, i, r, t, b) VALUES (\(row[0]), \(row[1]), \(row[2]), \(row[3]), \(row[4]))")
                        == 1)
                expected.append(row)
            }
            // NULL in a statement already prepared with values: still NULL.
            let nulls: [SQLValue] = [.integer(Int64(count)), .null, .null, .null, .null]
            try db.execute(
                "INSERT INTO v (id, i, r, t, b) VALUES (\(nulls[0]), \(nulls[1]), \(nulls[2]), \(nulls[3]), \(nulls[4]))"
            )
            expected.append(nulls)
        }
        let rows = try database.read { db in try db.rows("SELECT id, i, r, t, b FROM v ORDER BY id").map(\.values) }
        #expect(rows.count == expected.count)
        for (row, want) in zip(rows, expected) {
            #expect(row == want, "row \(want[0])")
            if case .real(let got) = row[2], case .real(let wanted) = want[2] {
                #expect(got.sign == wanted.sign, "row \(want[0]): the sign of zero")
            }
        }
    }

    /// A statement first prepared with NULLs leaves its types to the server; later values go as text and must
    /// survive the trip exactly.
    @Test func valuesBoundAsTextSurvive() throws {
        let database = try TestPostgres.database()
        try database.write { db in
            try db.executeScript("CREATE TABLE v (i BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA)")
        }
        func insert(_ values: [SQLValue]) throws {
            try database.write { db in
                try db.execute(
                    "INSERT INTO v (i, r, t, b) VALUES (\(values[0]), \(values[1]), \(values[2]), \(values[3]))")
            }
        }
        try insert([.null, .null, .null, .null])
        var expected: [[SQLValue]] = []
        for index in 0..<12 {
            let row: [SQLValue] = [
                .integer(Self.integers[index % Self.integers.count]), .real(Self.reals[index % Self.reals.count]),
                .text(Self.texts[index % Self.texts.count]), .blob(Self.blobs[index % Self.blobs.count]),
            ]
            try insert(row)
            expected.append(row)
        }
        let rows = try database.read { db in
            try db.rows("SELECT i, r, t, b FROM v WHERE i IS NOT NULL ORDER BY ctid").map(\.values)
        }
        #expect(rows == expected)
        #expect(throws: StoreError.self) { try insert([.integer(1), .null, .text("nul \u{0} inside"), .null]) }
    }

    @Test func resultsDecodeByColumnType() throws {
        let database = try TestPostgres.database()
        let row = try database.read { db in
            try db.row(
                """
                SELECT 7::int2, 70000::int4, 9000000000::int8, true, false, 1.25::numeric, 2.5::float4,
                       'v'::varchar, NULL::text, ''::bytea, 'Infinity'::float8, '-Infinity'::float8, 'NaN'::float8,
                       '{"a": 1}'::jsonb, 26::oid, COUNT(*), SUM(x), NULL::bigint
                FROM (VALUES (1::bigint), (2::bigint)) AS t(x)
                """)!
        }
        #expect(row.values[0..<5] == [.integer(7), .integer(70000), .integer(9_000_000_000), .integer(1), .integer(0)])
        #expect(row.values[5..<10] == [.real(1.25), .real(2.5), .text("v"), .null, .blob([])])
        #expect(row.values[10] == .real(.infinity))
        #expect(row.values[11] == .real(-.infinity))
        #expect(row.double(12).isNaN)
        #expect(row.values[13] == .text(#"{"a": 1}"#))
        #expect(row.values[14...] == [.integer(26), .integer(2), .real(3), .null])
    }

    @Test func statementsArePreparedOncePerConnection() throws {
        let database = try TestPostgres.database(options: .init(poolSize: 1))
        for number: Int64 in [1, 2, 3] {
            #expect(try database.read { db in try db.scalar("SELECT \(number) + 1 AS plus_one") } == number + 1)
        }
        #expect(try database.write { db in try db.scalar("SELECT \(Int64(10)) + 1 AS plus_one") } == 11)
        let prepared = try database.read { db in
            try db.scalar("SELECT COUNT(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1 + 1 AS plus_one'")
        }
        #expect(prepared == 1)
        // `?` inside quotes is text, not a placeholder.
        #expect(try database.read { db in try db.row("SELECT '?' || \("x")")?.text(0) } == "?x")
    }

    @Test func executeCountsRowsAndReturningReturns() throws {
        let database = try TestPostgres.database()
        try database.write { db in
            try db.executeScript(
                "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT); CREATE INDEX t_name ON t (name)"
            )
            for name in ["a", "b", "b"] { try db.execute("INSERT INTO t (name) VALUES (\(name))") }
        }
        #expect(try database.write { db in try db.execute("UPDATE t SET name = 'c' WHERE name = \("b")") } == 2)
        #expect(try database.write { db in try db.execute("CREATE INDEX t_other ON t (id)") } == 0)
        let ids = try database.write { db in try db.rows("INSERT INTO t (name) VALUES ('d'), ('e') RETURNING id") }
        #expect(ids.map { $0.int(0) } == [4, 5])
        #expect(database.committedWriteCount == 4)
    }
}
