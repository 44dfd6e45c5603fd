import HeraldHTTPServer
import HeraldModel

/// A request's parameters, from its JSON body or its query string, as Punchh clients send them either way
/// (even a GET may carry a JSON body). The body wins when both have a value.
struct RequestParameters {
    /// The JSON body (an empty object for an empty body).
    let body: JSON
    private let query: [(name: String, value: String)]

    /// Parses `request`'s body; malformed JSON or a body that is not an object is a 400.
    init(_ request: HTTPRequest) throws {
        body = try request.jsonObjectBody()
        query = request.query
    }

    /// The value of `key` as a string (numbers are accepted as their text).
    func string(_ key: String) -> String? {
        if let value = body[key] {
            switch value {
            case .string(let text): return text
            case .int(let number): return String(number)
            case .double(let number): return String(number)
            case .bool(let flag): return String(flag)
            default: return nil
            }
        }
        return query.first { $0.name == key }?.value
    }

    /// The value of `key` as an integer: a JSON integer or an integer in text.
    func int64(_ key: String) -> Int64? {
        if let value = body[key] {
            if let number = value.int64Value { return number }
            if let text = value.stringValue { return Int64(text.trimmingCharacters(in: " ")) }
            return nil
        }
        return query.first { $0.name == key }.flatMap { Int64($0.value) }
    }

    /// True when `key` is present in the body or the query.
    func has(_ key: String) -> Bool {
        body[key] != nil || query.contains { $0.name == key }
    }

    /// A list of ids given as `"1,2,3"`, `[1,2,3]`, `["1","2"]` or a single number; nil when absent,
    /// a 422 on `key` when it holds something else.
    func idList(_ key: String) throws -> [Int64]? {
        guard has(key) else { return nil }
        if let value = body[key] {
            switch value {
            case .null: return []
            case .array(let items):
                return try items.map { item in
                    guard let id = item.int64Value ?? item.stringValue.flatMap({ Int64($0) }) else {
                        throw HTTPError.invalid(key, "must be a list of ids")
                    }
                    return id
                }
            case .int, .double:
                guard let id = value.int64Value else { throw HTTPError.invalid(key, "must be a list of ids") }
                return [id]
            case .string(let text):
                return try Self.parseIDs(text, key)
            default:
                throw HTTPError.invalid(key, "must be a list of ids")
            }
        }
        return try Self.parseIDs(query.first { $0.name == key }!.value, key)
    }

    private static func parseIDs(_ text: String, _ key: String) throws -> [Int64] {
        try text.split(separator: ",").compactMap { part in
            let trimmed = part.trimmingCharacters(in: " ")
            if trimmed.isEmpty { return nil }
            guard let id = Int64(trimmed) else { throw HTTPError.invalid(key, "must be comma-separated ids") }
            return id
        }
    }
}

/// Ids in paths: digits only (no sign, no spaces), within Int64.
enum PathID {
    static func parse(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }
}

extension StringProtocol {
    func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}

extension HTTPRequest {
    /// The body as a JSON object (an empty one for an empty body); malformed JSON or any other value is a 400.
    func jsonObjectBody() throws -> JSON {
        let body = try jsonBody()
        guard case .object = body else { throw HTTPError.badRequest("the JSON body must be an object") }
        return body
    }
}
