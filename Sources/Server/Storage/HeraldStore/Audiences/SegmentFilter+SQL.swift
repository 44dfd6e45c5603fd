import HeraldModel

extension SegmentFilter {
    /// The filter as a SQL condition on a device `d` (and, when it reads attributes, its user `u`, LEFT JOINed:
    /// NULL for a device without one), in `dialect`. Keys and values are bound, never spliced. Every condition
    /// comes out TRUE or FALSE, never NULL, so `NOT` is exact.
    ///
    /// Attributes are JSON text: SQLite reads them with `json_type` / `json_extract` and a bound path
    /// (`$."key"`: keys hold no quotes, see `isAttributeKey`), PostgreSQL as `jsonb` with `->` / `->>` and a bound
    /// key. Numbers compare as doubles, strings by their UTF-8 bytes (`COLLATE "C"`) on both. `now` is what "last
    /// seen within" counts back from.
    func condition(_ dialect: SQLDialect, at now: Timestamp) -> SQLQuery {
        let postgres = dialect.name == "postgres"
        switch self {
        case .all(let filters):
            guard !filters.isEmpty else { return postgres ? "TRUE" : "1" }
            return "(" + Self.joined(filters.map { $0.condition(dialect, at: now) }, " AND ") + ")"
        case .any(let filters):
            guard !filters.isEmpty else { return postgres ? "FALSE" : "0" }
            return "(" + Self.joined(filters.map { $0.condition(dialect, at: now) }, " OR ") + ")"
        case .not(let filter):
            return "(NOT \(filter.condition(dialect, at: now)))"
        case .attribute(let key, let test):
            let test = postgres ? Self.postgresTest(key, test) : Self.sqliteTest(key, test)
            return "COALESCE(\(test), \(raw: postgres ? "FALSE" : "0"))"
        case .segment(let name):
            return "EXISTS (SELECT 1 FROM device_segments ds WHERE ds.device_id = d.id AND ds.segment = \(name))"
        case .platform(let platform):
            return "(d.platform = \(platform.rawValue))"
        case .lastSeenWithinDays(let days):
            let since = now.adding(.seconds(-86_400 * Int64(days)))
            return "(d.last_seen_at IS NOT NULL AND d.last_seen_at >= \(since))"
        }
    }

    private static func joined(_ parts: [SQLQuery], _ separator: String) -> SQLQuery {
        var result: SQLQuery = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { result += SQLQuery(stringLiteral: separator) }
            result += part
        }
        return result
    }

    // MARK: - SQLite

    private static func sqliteTest(_ key: String, _ test: AttributeTest) -> SQLQuery {
        let path = "$.\"" + key + "\""
        let type: SQLQuery = "json_type(u.attributes, \(path))"
        let value: SQLQuery = "json_extract(u.attributes, \(path))"
        func equals(_ operand: AttributeValue) -> SQLQuery {
            switch operand {
            case .string(let text): return "(\(type) = 'text' AND \(value) = \(text))"
            case .number(let number): return "(\(type) IN ('integer', 'real') AND \(value) = \(number))"
            case .bool(let flag): return "(\(type) = \(raw: flag ? "'true'" : "'false'"))"
            }
        }
        func compares(_ operand: AttributeValue, _ comparison: String) -> SQLQuery {
            switch operand {
            case .string(let text): return "(\(type) = 'text' AND \(value) \(raw: comparison) \(text))"
            case .number(let number):
                return "(\(type) IN ('integer', 'real') AND \(value) \(raw: comparison) \(number))"
            case .bool: return "0"
            }
        }
        switch test {
        case .eq(let operand): return equals(operand)
        case .ne(let operand): return "(NOT COALESCE(\(equals(operand)), 0))"
        case .lt(let operand): return compares(operand, "<")
        case .gt(let operand): return compares(operand, ">")
        case .in(let operands):
            let (strings, numbers, flags) = partition(operands)
            var parts: [SQLQuery] = flags.map { equals(.bool($0)) }
            if !strings.isEmpty { parts.append("(\(type) = 'text' AND \(value) IN (\(list: strings)))") }
            if !numbers.isEmpty { parts.append("(\(type) IN ('integer', 'real') AND \(value) IN (\(list: numbers)))") }
            return "(" + joined(parts, " OR ") + ")"
        case .exists: return "(\(type) IS NOT NULL AND \(type) <> 'null')"
        }
    }

    // MARK: - PostgreSQL

    private static func postgresTest(_ key: String, _ test: AttributeTest) -> SQLQuery {
        let document: SQLQuery = "CAST(u.attributes AS jsonb)"
        let type: SQLQuery = "jsonb_typeof(\(document) -> \(key))"
        let text: SQLQuery = "(\(document) ->> \(key))"
        func equals(_ operand: AttributeValue) -> SQLQuery {
            switch operand {
            case .string(let string): return "(\(type) = 'string' AND \(text) = \(string))"
            case .number(let number):
                // CASE, not AND: PostgreSQL may evaluate either side of an AND first, and a string can't be cast.
                return "(CASE WHEN \(type) = 'number' THEN CAST(\(text) AS DOUBLE PRECISION) = \(number) END)"
            case .bool(let flag): return "(\(type) = 'boolean' AND \(text) = \(raw: flag ? "'true'" : "'false'"))"
            }
        }
        func compares(_ operand: AttributeValue, _ comparison: String) -> SQLQuery {
            switch operand {
            case .string(let string):
                return "(\(type) = 'string' AND \(text) COLLATE \"C\" \(raw: comparison) \(string) COLLATE \"C\")"
            case .number(let number):
                return
                    "(CASE WHEN \(type) = 'number' THEN CAST(\(text) AS DOUBLE PRECISION) \(raw: comparison) \(number) END)"
            case .bool: return "FALSE"
            }
        }
        switch test {
        case .eq(let operand): return equals(operand)
        case .ne(let operand): return "(NOT COALESCE(\(equals(operand)), FALSE))"
        case .lt(let operand): return compares(operand, "<")
        case .gt(let operand): return compares(operand, ">")
        case .in(let operands):
            let (strings, numbers, flags) = partition(operands)
            var parts: [SQLQuery] = flags.map { equals(.bool($0)) }
            if !strings.isEmpty { parts.append("(\(type) = 'string' AND \(text) = ANY(\(array: strings)::text[]))") }
            if !numbers.isEmpty {
                parts.append(
                    "(CASE WHEN \(type) = 'number' THEN CAST(\(text) AS DOUBLE PRECISION) = ANY(\(array: numbers)::float8[]) END)"
                )
            }
            return "(" + joined(parts, " OR ") + ")"
        case .exists: return "(\(type) IS NOT NULL AND \(type) <> 'null')"
        }
    }

    /// An `in`'s values by kind, each once, in their order.
    private static func partition(_ operands: [AttributeValue]) -> (
        strings: [String], numbers: [Double], flags: [Bool]
    ) {
        var seen = Set<AttributeValue>()
        var strings: [String] = []
        var numbers: [Double] = []
        var flags: [Bool] = []
        for operand in operands where seen.insert(operand).inserted {
            switch operand {
            case .string(let text): strings.append(text)
            case .number(let number): numbers.append(number)
            case .bool(let flag): flags.append(flag)
            }
        }
        return (strings, numbers, flags)
    }
}
