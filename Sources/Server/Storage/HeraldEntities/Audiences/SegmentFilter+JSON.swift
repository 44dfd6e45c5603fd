import HeraldModel

/// What is wrong with a segment filter, and where: `path` names the node (`filter.all[2].op`).
package struct SegmentFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path of the bad node or field, from `filter`.
    package let path: String
    /// What is wrong with it.
    package let message: String

    /// An error at `path`.
    package init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { "\(path): \(message)" }
}

extension SegmentFilter {
    /// Reads a filter from its JSON form (the grammar below), checking every node and the limits
    /// (`maximumNodes`, `maximumDepth`, `maximumInValues`, `maximumValues`):
    ///
    /// - `{"all":[…]}`, `{"any":[…]}`, `{"not":{…}}`
    /// - `{"attribute":"<key>","op":"eq"|"ne"|"lt"|"gt"|"in"|"exists","value":…}`: `value` a string, number or
    ///   boolean (`lt`/`gt`: a string or number), a non-empty list of them for `in`, absent for `exists`
    /// - `{"segment":"<device segment>"}`, `{"platform":"ios"|"android"}`, `{"last_seen_within_days":1…3650}`
    ///
    /// Throws the first problem found, its path starting at `path`.
    package init(json: JSON, path: String = "filter") throws(SegmentFilterError) {
        var budget = Budget()
        self = try Self.parse(json, path: path, depth: 0, &budget)
    }

    /// The JSON form (what `init(json:)` reads back to an equal filter).
    package var json: JSON {
        switch self {
        case .all(let filters): return ["all": .array(filters.map(\.json))]
        case .any(let filters): return ["any": .array(filters.map(\.json))]
        case .not(let filter): return ["not": filter.json]
        case .attribute(let key, let test):
            var pairs: [(key: String, value: JSON)] = [("attribute", .string(key))]
            switch test {
            case .eq(let value): pairs += [("op", "eq"), ("value", value.json)]
            case .ne(let value): pairs += [("op", "ne"), ("value", value.json)]
            case .lt(let value): pairs += [("op", "lt"), ("value", value.json)]
            case .gt(let value): pairs += [("op", "gt"), ("value", value.json)]
            case .in(let values): pairs += [("op", "in"), ("value", .array(values.map(\.json)))]
            case .exists: pairs.append(("op", "exists"))
            }
            return .object(pairs)
        case .segment(let name): return ["segment": .string(name)]
        case .platform(let platform): return ["platform": .string(platform == .fcm ? "android" : "ios")]
        case .lastSeenWithinDays(let days): return ["last_seen_within_days": JSON(days)]
        }
    }

    /// What a filter may still use up.
    private struct Budget {
        var nodes = 0
        var values = 0
    }

    private static let kinds = ["all", "any", "not", "attribute", "segment", "platform", "last_seen_within_days"]

    private static func parse(_ json: JSON, path: String, depth: Int, _ budget: inout Budget)
        throws(SegmentFilterError) -> SegmentFilter
    {
        budget.nodes += 1
        guard budget.nodes <= maximumNodes else {
            throw SegmentFilterError(path: path, "too many conditions (at most \(maximumNodes) in a filter)")
        }
        guard let pairs = json.objectValue else {
            throw SegmentFilterError(
                path: path, "must be an object with one of: \(kinds.joined(separator: ", ")); got \(json.typeName)")
        }
        let present = kinds.filter { json[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            throw SegmentFilterError(
                path: path,
                present.isEmpty
                    ? "must have one of: \(kinds.joined(separator: ", "))"
                    : "has \(present.joined(separator: " and ")); a condition is exactly one of them")
        }
        let allowed: Set<String> = kind == "attribute" ? ["attribute", "op", "value"] : [kind]
        if let unknown = pairs.first(where: { !allowed.contains($0.key) }) {
            throw SegmentFilterError(path: path + "." + unknown.key, "is not a field of a \(kind) condition")
        }
        let value = json[kind]!
        let here = path + "." + kind
        switch kind {
        case "all", "any":
            guard depth < maximumDepth else {
                throw SegmentFilterError(path: here, "nests too deep (at most \(maximumDepth) levels)")
            }
            guard let items = value.arrayValue else {
                throw SegmentFilterError(path: here, "must be a list of conditions; got \(value.typeName)")
            }
            var filters: [SegmentFilter] = []
            for (index, item) in items.enumerated() {
                filters.append(try parse(item, path: "\(here)[\(index)]", depth: depth + 1, &budget))
            }
            return kind == "all" ? .all(filters) : .any(filters)
        case "not":
            guard depth < maximumDepth else {
                throw SegmentFilterError(path: here, "nests too deep (at most \(maximumDepth) levels)")
            }
            return .not(try parse(value, path: here, depth: depth + 1, &budget))
        case "attribute":
            return try parseAttribute(json, path: path, &budget)
        case "segment":
            guard let name = value.stringValue, !name.isEmpty, name.count <= 255 else {
                throw SegmentFilterError(path: here, "must be a device segment's name (1–255 characters)")
            }
            return .segment(name)
        case "platform":
            switch value.stringValue {
            case "ios", "apns": return .platform(.apns)
            case "android", "fcm": return .platform(.fcm)
            default: throw SegmentFilterError(path: here, "must be ios or android")
            }
        default:
            guard let days = value.int64Value, (1...3650).contains(days) else {
                throw SegmentFilterError(path: here, "must be a whole number of days from 1 to 3650")
            }
            return .lastSeenWithinDays(Int(days))
        }
    }

    private static func parseAttribute(_ json: JSON, path: String, _ budget: inout Budget)
        throws(SegmentFilterError) -> SegmentFilter
    {
        guard let key = json["attribute"]?.stringValue, isAttributeKey(key) else {
            throw SegmentFilterError(
                path: path + ".attribute",
                "must be an attribute's key: 1–\(maximumKeyLength) letters, digits, _, -, . or :")
        }
        let operators = ["eq", "ne", "lt", "gt", "in", "exists"]
        guard let op = json["op"]?.stringValue, operators.contains(op) else {
            throw SegmentFilterError(path: path + ".op", "must be one of: \(operators.joined(separator: ", "))")
        }
        let valuePath = path + ".value"
        let value = json["value"]
        if op == "exists" {
            guard value == nil else { throw SegmentFilterError(path: valuePath, "must be absent for exists") }
            return .attribute(key, .exists)
        }
        guard let value else { throw SegmentFilterError(path: valuePath, "is required for \(op)") }
        if op == "in" {
            guard let items = value.arrayValue, !items.isEmpty else {
                throw SegmentFilterError(path: valuePath, "must be a non-empty list of values for in")
            }
            guard items.count <= maximumInValues else {
                throw SegmentFilterError(path: valuePath, "has too many values (at most \(maximumInValues))")
            }
            budget.values += items.count
            guard budget.values <= maximumValues else {
                throw SegmentFilterError(path: valuePath, "too many values in the filter (at most \(maximumValues))")
            }
            var values: [AttributeValue] = []
            for (index, item) in items.enumerated() {
                values.append(try attributeValue(item, path: "\(valuePath)[\(index)]"))
            }
            return .attribute(key, .in(values))
        }
        let scalar = try attributeValue(value, path: valuePath)
        switch op {
        case "eq": return .attribute(key, .eq(scalar))
        case "ne": return .attribute(key, .ne(scalar))
        default:
            if case .bool = scalar {
                throw SegmentFilterError(path: valuePath, "must be a number or a string for \(op)")
            }
            return .attribute(key, op == "lt" ? .lt(scalar) : .gt(scalar))
        }
    }

    private static func attributeValue(_ json: JSON, path: String) throws(SegmentFilterError) -> AttributeValue {
        switch json {
        case .string(let text):
            guard text.utf8.count <= maximumStringBytes else {
                throw SegmentFilterError(path: path, "is too long (at most \(maximumStringBytes) bytes)")
            }
            guard !text.utf8.contains(0) else { throw SegmentFilterError(path: path, "must not contain NUL") }
            return .string(text)
        case .int(let number): return .number(Double(number))
        case .double(let number) where number.isFinite: return .number(number)
        case .bool(let flag): return .bool(flag)
        default:
            throw SegmentFilterError(path: path, "must be a string, a number or a boolean; got \(json.typeName)")
        }
    }
}

extension SegmentFilter.AttributeValue {
    /// The value as JSON (a whole number as an integer).
    package var json: JSON {
        switch self {
        case .string(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .number(let number):
            if number.rounded() == number, abs(number) < 9.0e15 { return .int(Int64(number)) }
            return .double(number)
        }
    }
}
