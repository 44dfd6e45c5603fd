/// What was wrong with a JSON text, and where.
public struct JSONParseError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What the parser expected or found.
    public let reason: String
    /// Byte offset of the problem in the input.
    public let offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSON {
    /// Nesting deeper than this is refused rather than risking the stack.
    public static let maximumDepth = 64

    /// Parses a complete JSON text (RFC 8259). Trailing non-whitespace is an error.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        try bytes.withUnsafeBufferPointer(JSONParser.parse).value()
    }

    /// Parses UTF-8 text.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        // Read in place, not copied to an array first (a push's extras are parsed from their column's text).
        var text = text
        return try text.withUTF8(JSONParser.parse).value()
    }
}

/// A recursive-descent parser over UTF-8 bytes.
struct JSONParser {
    private let input: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    init(_ input: UnsafeBufferPointer<UInt8>) { self.input = input }

    /// `input` parsed as a whole JSON text. A result rather than a typed throw: the standard library's
    /// `withUnsafeBufferPointer` and `withUTF8` pass typed throws through only from Swift 6 (iOS 18).
    static func parse(_ input: UnsafeBufferPointer<UInt8>) -> Result<JSON, JSONParseError> {
        var parser = JSONParser(input)
        do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        skipWhitespace()
        // A UTF-8 byte-order mark is tolerated, as most parsers do.
        if input.count - index >= 3, input[index] == 0xEF, input[index + 1] == 0xBB, input[index + 2] == 0xBF {
            index += 3
            skipWhitespace()
        }
        let value = try parseValue()
        skipWhitespace()
        guard index == input.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    private mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        guard index < input.count else { throw fail("unexpected end of input") }
        switch input[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard input.count - index >= count else { throw fail("invalid literal") }
        let start = literal.utf8Start
        for offset in 0..<count where input[index + offset] != start[offset] {
            throw fail("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSON.maximumDepth else { throw fail("nesting deeper than \(JSON.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var pairs: [(key: String, value: JSON)] = []
        // The keys seen, once there are enough that scanning them for each new one would cost more.
        var seen: Set<String> = []
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "}") {
            index += 1
            return .object(pairs)
        }
        while true {
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            // A key twice: which value counts would be each reader's guess, so the text is refused.
            if pairs.count < 16 ? pairs.contains(where: { $0.key == key }) : !seen.insert(key).inserted {
                throw JSONParseError(reason: "duplicate key", offset: keyOffset)
            }
            if pairs.count == 15 { seen = Set(pairs.map(\.key) + [key]) }
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            pairs.append((key: key, value: try parseValue()))
            skipWhitespace()
            guard index < input.count else { throw fail("unterminated object") }
            if input[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard input[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            return .object(pairs)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < input.count else { throw fail("unterminated array") }
            if input[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard input[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            return .array(items)
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes. The bytes are ORed together on the way, to know whether any is not ASCII.
        var seen: UInt8 = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: input[start..<index])
                index += 1
                guard let string = Self.decodeUTF8(slice, ascii: seen < 0x80) else { throw invalidUTF8(at: start) }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in string") }
            seen |= byte
            index += 1
        }
        var bytes = Array(UnsafeBufferPointer(rebasing: input[start..<index]))
        while index < input.count {
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                // Escapes add whole UTF-8 sequences: only the bytes copied from the input may be invalid.
                guard let string = bytes.withUnsafeBufferPointer({ Self.decodeUTF8($0, ascii: seen < 0x80) }) else {
                    throw invalidUTF8(at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < input.count else { throw fail("unterminated escape") }
                let escaped = input[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"): appendScalar(try parseUnicodeEscape(), to: &bytes)
                default: throw fail("invalid escape")
                }
            default:
                if byte < 0x20 { throw fail("control character in string") }
                seen |= byte
                bytes.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    /// `bytes` as a string, or nil when they are not UTF-8. `String(decoding:as:)` validates as it copies and
    /// replaces what is not UTF-8, so the string's bytes then differ from the input's; ASCII (`ascii`) has nothing to
    /// replace. (`String(validating:as:)` is Swift 6's: iOS before 18 does not have it.)
    private static func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        if ascii { return string }
        let utf8 = string.utf8
        guard utf8.count == bytes.count,
            utf8.withContiguousStorageIfAvailable({ $0.elementsEqual(bytes) }) ?? utf8.elementsEqual(bytes)
        else { return nil }
        return string
    }

    private func invalidUTF8(at offset: Int) -> JSONParseError {
        JSONParseError(reason: "invalid UTF-8 in string", offset: offset)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard input.count - index >= 4 else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard input.count - index >= 2, input[index] == UInt8(ascii: "\\"), input[index + 1] == UInt8(ascii: "u")
            else { throw fail("unpaired surrogate") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else { throw fail("unpaired surrogate") }
        return scalar
    }

    private func appendScalar(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
        for unit in UTF8.encode(scalar)! { bytes.append(unit) }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = index
        var isInteger = true
        if input[index] == UInt8(ascii: "-") { index += 1 }
        guard index < input.count, isDigit(input[index]) else { throw fail("invalid number") }
        if input[index] == UInt8(ascii: "0") {
            index += 1
            if index < input.count, isDigit(input[index]) { throw fail("leading zero in number") }
        } else {
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < input.count, isDigit(input[index]) else { throw fail("invalid number") }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < input.count, isDigit(input[index]) else { throw fail("invalid number") }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(reason: "number out of range", offset: start)
        }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
