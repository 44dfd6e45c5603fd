extension SQLConnection {
    /// Inserts `rows` (each one value per column, in `columns`' order) into `table`, many rows a statement, and
    /// hands each row `returning` names back to `returned` (in no particular order: name a column that tells the
    /// rows apart).
    ///
    /// For writes of many rows at once (a campaign's batch of messages): a statement per row cost SQLite more in
    /// its own setup (text, bindings, the statement's start and end) than in writing the row. Statements carry at
    /// most `rowsPerInsert` rows and otherwise a power of two, so that any number of rows shares a few prepared
    /// statements.
    /// `statement`, when given, makes each `INSERT … VALUES …` part of a larger statement (a `WITH` that writes the
    /// inserted rows on to another table). `arrays` binds each column's values as one array where the database
    /// can (`rowsPerArrayInsert`): measured cheaper on PostgreSQL for a campaign's entries and jobs (many columns,
    /// several NULL in every row), dearer for an import's users and devices (long text keys: bench/RESULTS.md).
    func insertRows(
        into table: String, columns: [String], _ rows: [[SQLValue]], returning: String? = nil, arrays: Bool = false,
        _ returned: (SQLRow) throws -> Void = { _ in }, statement: ((String) -> String)? = nil
    ) throws {
        if arrays, rowsPerArrayInsert > 0 {
            return try insertArrays(
                into: table, columns: columns, rows, returning: returning, returned, statement: statement)
        }
        // Within SQLite's limit on bound values (32,766), under PostgreSQL's (65,535).
        let chunk = min(rowsPerInsert, 32_766 / columns.count)
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        let placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        var start = 0
        while start < rows.count {
            var size = 1
            while size * 2 <= chunk { size *= 2 }
            while size > rows.count - start { size /= 2 }
            var sql = head
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(size * columns.count)
            for index in start..<start + size {
                precondition(rows[index].count == columns.count, "a row of \(table) with the wrong number of values")
                sql += index == start ? placeholders : ", " + placeholders
                bindings += rows[index]
            }
            if let statement { sql = statement(sql) }
            if let returning {
                try forEachRow(SQLQuery(sql: sql + " RETURNING " + returning, bindings: bindings), returned)
            } else {
                try execute(SQLQuery(sql: sql, bindings: bindings))
            }
            start += size
        }
    }

    /// 64: SQLite's measured best (its statement set-up against the row's own writes).
    package var rowsPerInsert: Int { 64 }

    /// 0: SQLite binds no arrays, so `insertRows` writes `VALUES` lists there.
    package var rowsPerArrayInsert: Int { 0 }

    /// `insertRows` where arrays bind (PostgreSQL): each column's values of up to `rowsPerArrayInsert` rows bound as
    /// one array and the rows read back out of them, `INSERT … SELECT … FROM unnest(?::bigint[], ?::text[], …)`:
    /// a statement of a few values whatever its rows, rather than a `VALUES` list of a value per column and row,
    /// which PostgreSQL set up anew (an expression per value) at each run. A column NULL in every row is written
    /// `NULL` (an array of nothing but NULLs has no type to read it back as).
    private func insertArrays(
        into table: String, columns: [String], _ rows: [[SQLValue]], returning: String?,
        _ returned: (SQLRow) throws -> Void, statement: ((String) -> String)?
    ) throws {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + rowsPerArrayInsert)
            var selected: [String] = []
            var arrays: [String] = []
            var bindings: [SQLValue] = []
            for column in columns.indices {
                guard let type = SQLArray.type(of: rows[start..<end].lazy.map { $0[column] }) else {
                    selected.append("NULL")
                    continue
                }
                selected.append("u.c\(column)")
                arrays.append("?::\(type)[]")
                bindings.append(.text(SQLArray.literal(rows[start..<end].lazy.map { $0[column] })))
            }
            let names = columns.indices.filter { selected[$0] != "NULL" }.map { "c\($0)" }
            var sql =
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) "
                + "FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(names.joined(separator: ", ")))"
            if let statement { sql = statement(sql) }
            if let returning {
                try forEachRow(SQLQuery(sql: sql + " RETURNING " + returning, bindings: bindings), returned)
            } else {
                try execute(SQLQuery(sql: sql, bindings: bindings))
            }
            start = end
        }
    }
}
