/// A JSON value that keeps the order of object keys, so what Herald writes reads as Punchh's examples do.
///
/// ```swift
/// let body = try JSON.parse(Array(#"{"client":"abc","user":{"email":"a@b.c"}}"#.utf8))
/// body["user"]?["email"]?.stringValue  // "a@b.c"
/// ```
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSON])
    /// Keys in the order they were written; duplicate keys resolve to the last one.
    case object([(key: String, value: JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            // As objects are read: the last value of a repeated key wins; order doesn't matter.
            let left = Dictionary(a.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            let right = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            return left == right
        default: return false
        }
    }
}

extension JSON {
    /// The value under `key` of an object, or nil for anything else.
    public subscript(key: String) -> JSON? {
        guard case .object(let pairs) = self else { return nil }
        for pair in pairs.reversed() where pair.key == key { return pair.value }
        return nil
    }

    /// The object's pairs, or nil.
    public var objectValue: [(key: String, value: JSON)]? {
        if case .object(let pairs) = self { return pairs }
        return nil
    }

    /// The array's elements, or nil.
    public var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The string, or nil for anything else.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, or nil for anything else.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// An integral number as Int64 (a double with no fraction counts), or nil.
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }

    /// Any number as a Double, or nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSON {
    /// `.string(value)`, or `.null` when value is nil.
    public init(_ value: String?) { self = value.map { .string($0) } ?? .null }
    /// `.int(value)`, or `.null` when value is nil.
    public init(_ value: Int64?) { self = value.map { .int($0) } ?? .null }
    /// `.int(value)`.
    public init(_ value: Int) { self = .int(Int64(value)) }
}
