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
    /// inserted rows on to another table).
    func insertRows(
        into table: String, columns: [String], _ rows: [[SQLValue]], returning: String? = nil,
        _ returned: (SQLRow) throws -> Void = { _ in }, statement: ((String) -> String)? = nil
    ) throws {
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
    public var rowsPerInsert: Int { 64 }
}
