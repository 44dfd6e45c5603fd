import Foundation
import HeraldModel

/// The JSON Schema (2020-12, as OpenAPI 3.1 uses it) keywords docs/openapi.json uses, checked: `$ref`, `type`,
/// `enum`, `const`, `properties`, `required`, `additionalProperties`, `propertyNames`, `minProperties`,
/// `maxProperties`, `items`, `minItems`, `maxItems`, `uniqueItems`, `minLength`, `maxLength`, `pattern`, `minimum`,
/// `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `oneOf`, `anyOf`, `allOf`, `not`, and the formats `date-time`,
/// `uuid` and `int64`. Annotations (`description`, `examples`, `default`, `format: uri`…) are not checked.
extension OpenAPIValidator {
    /// What is wrong with `value` against `schema`, each problem with its place (`$.data[0].id`).
    func schemaProblems(_ value: JSON, _ schema: JSON, at place: String) -> [String] {
        if case .bool(let allowed) = schema { return allowed ? [] : ["\(place): is not allowed here"] }
        guard schema.objectValue != nil else { return [] }
        var problems: [String] = []
        if let reference = schema["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(place): $ref \(reference) resolves to nothing"] }
            problems += schemaProblems(value, target, at: place)
        }
        if let types = schema["type"] {
            let names = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? ""]
            guard names.contains(where: { Self.has(value, type: $0) }) else {
                return problems + ["\(place): expected \(names.joined(separator: " or ")), got \(Self.describe(value))"]
            }
        }
        if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) {
            problems.append("\(place): \(Self.describe(value)) is not one of \(JSON.array(allowed).encodedString)")
        }
        if let constant = schema["const"], constant != value {
            problems.append("\(place): \(Self.describe(value)) is not \(constant.encodedString)")
        }
        problems += combinationProblems(value, schema, at: place)
        switch value {
        case .object(let pairs): problems += objectProblems(pairs, schema, at: place)
        case .array(let items): problems += arrayProblems(items, schema, at: place)
        case .string(let text): problems += stringProblems(text, schema, at: place)
        case .int, .double: problems += numberProblems(value, schema, at: place)
        case .null, .bool: break
        }
        return problems
    }

    private func combinationProblems(_ value: JSON, _ schema: JSON, at place: String) -> [String] {
        var problems: [String] = []
        for branch in schema["allOf"]?.arrayValue ?? [] { problems += schemaProblems(value, branch, at: place) }
        if let branches = schema["anyOf"]?.arrayValue {
            let outcomes = branches.map { schemaProblems(value, $0, at: place) }
            if !outcomes.contains(where: \.isEmpty) {
                problems.append("\(place): matches none of anyOf; the closest: " + Self.closest(outcomes))
            }
        }
        if let branches = schema["oneOf"]?.arrayValue {
            let outcomes = branches.map { schemaProblems(value, $0, at: place) }
            let matching = outcomes.indices.filter { outcomes[$0].isEmpty }
            if matching.isEmpty {
                problems.append("\(place): matches none of oneOf; the closest: " + Self.closest(outcomes))
            } else if matching.count > 1 {
                problems.append("\(place): matches oneOf's branches \(matching) (exactly one must)")
            }
        }
        if let excluded = schema["not"], schemaProblems(value, excluded, at: place).isEmpty {
            problems.append("\(place): matches what `not` excludes")
        }
        return problems
    }

    private func objectProblems(_ pairs: [(key: String, value: JSON)], _ schema: JSON, at place: String) -> [String] {
        var problems: [String] = []
        let properties = schema["properties"]?.objectValue ?? []
        let keys = Set(pairs.map(\.key))
        for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !keys.contains(name) {
            problems.append("\(place): the required \"\(name)\" is missing")
        }
        if let minimum = schema["minProperties"]?.int64Value, pairs.count < minimum {
            problems.append("\(place): has \(pairs.count) properties, fewer than \(minimum)")
        }
        if let maximum = schema["maxProperties"]?.int64Value, pairs.count > maximum {
            problems.append("\(place): has \(pairs.count) properties, more than \(maximum)")
        }
        for (key, item) in pairs {
            let inner = place + "." + key
            if let names = schema["propertyNames"] { problems += schemaProblems(.string(key), names, at: inner) }
            if let declared = properties.first(where: { $0.key == key }) {
                problems += schemaProblems(item, declared.value, at: inner)
            } else if let additional = schema["additionalProperties"] {
                if additional == .bool(false) {
                    problems.append("\(place): has \"\(key)\", which the document does not list (it closes the object)")
                } else {
                    problems += schemaProblems(item, additional, at: inner)
                }
            }
        }
        return problems
    }

    private func arrayProblems(_ items: [JSON], _ schema: JSON, at place: String) -> [String] {
        var problems: [String] = []
        if let minimum = schema["minItems"]?.int64Value, items.count < minimum {
            problems.append("\(place): has \(items.count) items, fewer than \(minimum)")
        }
        if let maximum = schema["maxItems"]?.int64Value, items.count > maximum {
            problems.append("\(place): has \(items.count) items, more than \(maximum)")
        }
        if schema["uniqueItems"]?.boolValue == true {
            for index in items.indices where items[..<index].contains(items[index]) {
                problems.append("\(place)[\(index)]: repeats an earlier item (uniqueItems)")
            }
        }
        if let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() {
                problems += schemaProblems(item, itemSchema, at: "\(place)[\(index)]")
            }
        }
        return problems
    }

    private func stringProblems(_ text: String, _ schema: JSON, at place: String) -> [String] {
        var problems: [String] = []
        let length = text.unicodeScalars.count
        if let minimum = schema["minLength"]?.int64Value, length < minimum {
            problems.append("\(place): \(JSON.string(text).encodedString) is shorter than \(minimum)")
        }
        if let maximum = schema["maxLength"]?.int64Value, length > maximum {
            problems.append("\(place): is \(length) characters long, more than \(maximum)")
        }
        if let pattern = schema["pattern"]?.stringValue {
            if let expression = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(text.startIndex..., in: text)
                if expression.firstMatch(in: text, range: range) == nil {
                    problems.append("\(place): \(JSON.string(text).encodedString) does not match \(pattern)")
                }
            } else {
                problems.append("\(place): the document's pattern \(pattern) is not a regular expression")
            }
        }
        switch schema["format"]?.stringValue {
        case "date-time" where !Self.isDateTime(text):
            problems.append("\(place): \(JSON.string(text).encodedString) is not an RFC 3339 date-time")
        case "uuid" where UUID(uuidString: text) == nil:
            problems.append("\(place): \(JSON.string(text).encodedString) is not a UUID")
        default: break
        }
        return problems
    }

    private func numberProblems(_ value: JSON, _ schema: JSON, at place: String) -> [String] {
        guard let number = value.doubleValue else { return [] }
        var problems: [String] = []
        let shown = value.encodedString
        if let minimum = schema["minimum"]?.doubleValue, number < minimum {
            problems.append("\(place): \(shown) is less than the minimum \(schema["minimum"]!.encodedString)")
        }
        if let maximum = schema["maximum"]?.doubleValue, number > maximum {
            problems.append("\(place): \(shown) is more than the maximum \(schema["maximum"]!.encodedString)")
        }
        if let bound = schema["exclusiveMinimum"]?.doubleValue, number <= bound {
            problems.append("\(place): \(shown) is not more than \(schema["exclusiveMinimum"]!.encodedString)")
        }
        if let bound = schema["exclusiveMaximum"]?.doubleValue, number >= bound {
            problems.append("\(place): \(shown) is not less than \(schema["exclusiveMaximum"]!.encodedString)")
        }
        return problems
    }

    /// Whether `value` is of JSON Schema type `type` (a number with no fraction is an integer).
    static func has(_ value: JSON, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .int), ("number", .double), ("integer", .int):
            return true
        case ("integer", .double(let number)): return number.rounded() == number
        default: return false
        }
    }

    /// `value` in a few words, for a problem's text.
    static func describe(_ value: JSON) -> String {
        let text = value.encodedString
        return text.count <= 60 ? "\(value.typeName) \(text)" : "\(value.typeName) \(text.prefix(57))…"
    }

    /// The problems of the branch that came closest (fewest problems), joined.
    static func closest(_ outcomes: [[String]]) -> String {
        (outcomes.min { $0.count < $1.count } ?? []).joined(separator: "; ")
    }

    /// An RFC 3339 date-time: `2017-02-14T07:26:55Z`, fractions and offsets allowed.
    static func isDateTime(_ text: String) -> Bool {
        text.range(
            of: #"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"#, options: .regularExpression)
            != nil
    }
}
