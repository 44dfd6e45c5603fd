/// SQL text with its values kept apart: interpolated values become placeholders, never text.
///
/// ```swift
/// let query: SQLQuery = "SELECT id FROM users WHERE business_id = \(businessID) AND email = \(email)"
/// // sql: "SELECT id FROM users WHERE business_id = ? AND email = ?", bindings: [.integer(…), .text(…)]
/// ```
/// `\(raw:)` splices trusted SQL (column lists, a dialect's words); `\(list:)` expands to `?, ?, ?`; `\(in: values,
/// dialect)` is a membership test that binds a list of any length as one array where the database can.
/// Placeholders are written `?`; a backend whose driver wants `$1` rewrites them (`SQLQuery.numbered`).
package struct SQLQuery: Sendable, ExpressibleByStringInterpolation {
    /// The SQL with `?` placeholders.
    package private(set) var sql: String
    /// The values, in placeholder order.
    package private(set) var bindings: [SQLValue]

    /// A query with no values.
    package init(stringLiteral value: String) {
        sql = value
        bindings = []
    }

    /// A query from its text and the values of its placeholders, in order (for a statement built in a loop, where
    /// interpolating a query per row would allocate one per row).
    init(sql: String, bindings: [SQLValue]) {
        self.sql = sql
        self.bindings = bindings
    }

    package init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        bindings = stringInterpolation.bindings
    }

    /// Builds the text and bindings of an interpolated query.
    package struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings: [SQLValue] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount)
            bindings.reserveCapacity(interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { sql += literal }

        /// A bound value.
        package mutating func appendInterpolation(_ value: some SQLBindable) {
            sql += "?"
            bindings.append(value.sqlValue)
        }

        /// A bound value that may be NULL.
        package mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            sql += "?"
            bindings.append(value?.sqlValue ?? .null)
        }

        /// Trusted SQL text, spliced as is. Never pass user input here.
        package mutating func appendInterpolation(raw text: String) { sql += text }

        /// A comma-separated list of bound values for `IN (...)`; an empty list binds one NULL so `IN (NULL)`
        /// matches nothing. Up to 1,024 values the list is padded to a power of two by repeating its last value
        /// (which changes nothing in an `IN`), so that lists of any length share a few statements in a driver's
        /// cache instead of each length preparing its own; longer lists are bound as they are (padding must not
        /// take one past SQLite's or PostgreSQL's limit on bound values).
        package mutating func appendInterpolation(list values: [some SQLBindable]) {
            guard let last = values.last else {
                sql += "NULL"
                return
            }
            var placeholders = values.count > 1024 ? values.count : 1
            while placeholders < values.count { placeholders *= 2 }
            for index in 0..<placeholders {
                sql += index == 0 ? "?" : ", ?"
                bindings.append((index < values.count ? values[index] : last).sqlValue)
            }
        }

        /// Values bound as one PostgreSQL array (`SQLArray`'s text form: a single `?`), for a statement that reads
        /// a list of any length through one prepared statement (`unnest(\(array: ids)::bigint[])`). PostgreSQL only:
        /// SQLite has no arrays (see `appendInterpolation(in:_:)`).
        package mutating func appendInterpolation(array values: [some SQLBindable]) {
            sql += "?"
            bindings.append(.text(SQLArray.literal(values.lazy.map(\.sqlValue))))
        }

        /// Membership of the expression before it in `values`, the way `dialect` answers it with one statement
        /// for lists of every length: on PostgreSQL (`SQLDialect.bindsArrays`) `= ANY(?::bigint[])`, the list
        /// bound as one array; elsewhere `IN (?, ?, …)` as `\(list:)` writes it (a few statements, by the power of
        /// two it pads to). An `IN` list's text grew with its length, and PostgreSQL prepares each text anew per
        /// connection (`PostgresConnection`'s cache: full, it deallocates every statement, the queue's too). An
        /// empty list (no element type to cast to) writes `IN (NULL)`, which matches nothing.
        ///
        /// ```swift
        /// let query: SQLQuery = "DELETE FROM delivery_claims WHERE id \(in: ids, dialect)"
        /// ```
        package mutating func appendInterpolation(in values: [some SQLBindable], _ dialect: SQLDialect) {
            let elements = values.lazy.map(\.sqlValue)
            guard dialect.bindsArrays, let type = SQLArray.type(of: elements) else {
                sql += "IN ("
                appendInterpolation(list: values)
                sql += ")"
                return
            }
            sql += "= ANY(?::\(type)[])"
            bindings.append(.text(SQLArray.literal(elements)))
        }

        /// Another query, spliced with its bindings.
        package mutating func appendInterpolation(_ query: SQLQuery) {
            sql += query.sql
            bindings += query.bindings
        }
    }

    /// Appends another query.
    package static func + (lhs: SQLQuery, rhs: SQLQuery) -> SQLQuery {
        var result = lhs
        result += rhs
        return result
    }

    /// Appends another query in place: building a long query row by row with `+=` stays linear, where
    /// `query = query + row` copies every binding so far for each row.
    package static func += (lhs: inout SQLQuery, rhs: SQLQuery) {
        lhs.sql += rhs.sql
        lhs.bindings += rhs.bindings
    }

    /// The SQL with `$1, $2, …` instead of `?` (for PostgreSQL). `?` inside quotes is left alone.
    package var numbered: String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + bindings.count * 2)
        var number = 0
        var inQuote = false
        for character in sql {
            if character == "'" { inQuote.toggle() }
            if character == "?" && !inQuote {
                number += 1
                out += "$\(number)"
            } else {
                out.append(character)
            }
        }
        return out
    }
}
