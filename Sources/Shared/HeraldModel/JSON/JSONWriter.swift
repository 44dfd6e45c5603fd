/// Writes JSON straight into bytes, without building a tree first: the fast path for hot responses.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.field("id", 42)
/// writer.field("message", "Points Earned")
/// writer.endObject()
/// writer.bytes  // {"id":42,"message":"Points Earned"}
/// ```
public struct JSONWriter: Sendable {
    /// The UTF-8 text written so far.
    public private(set) var bytes: [UInt8]
    private var needsComma = false
    private var afterKey = false

    /// A writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far, as a String.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func prepareValue() {
        if afterKey {
            afterKey = false
        } else if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// Opens an object (as a value, an array element or after `key`).
    public mutating func beginObject() {
        prepareValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array.
    public mutating func beginArray() {
        prepareValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next value written is its value.
    public mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Writes a string value.
    public mutating func value(_ string: String) {
        prepareValue()
        appendQuoted(string)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func value(_ number: Int64) {
        prepareValue()
        appendInteger(number)
        needsComma = true
    }

    /// Writes an integer value.
    public mutating func value(_ number: Int) { value(Int64(number)) }

    /// Writes a number; NaN and infinities, which JSON cannot carry, become null.
    public mutating func value(_ number: Double) {
        prepareValue()
        if number.isFinite {
            if number.rounded() == number, abs(number) < 1e15 {
                appendInteger(Int64(number))
            } else {
                bytes.append(contentsOf: number.description.utf8)
            }
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        needsComma = true
    }

    /// Writes true or false.
    public mutating func value(_ flag: Bool) {
        prepareValue()
        bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    /// Writes null.
    public mutating func null() {
        prepareValue()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes a whole JSON value.
    public mutating func value(_ json: JSON) {
        switch json {
        case .null: null()
        case .bool(let b): value(b)
        case .int(let i): value(i)
        case .double(let d): value(d)
        case .string(let s): value(s)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let pairs):
            beginObject()
            for pair in pairs {
                key(pair.key)
                value(pair.value)
            }
            endObject()
        }
    }

    /// Writes an already-encoded JSON text verbatim (it must be valid JSON).
    public mutating func raw(_ encoded: [UInt8]) {
        prepareValue()
        bytes.append(contentsOf: encoded)
        needsComma = true
    }

    /// `key` then a string, or null when nil.
    public mutating func field(_ name: String, _ string: String?) {
        key(name)
        if let string { value(string) } else { null() }
    }

    /// `key` then an integer, or null when nil.
    public mutating func field(_ name: String, _ number: Int64?) {
        key(name)
        if let number { value(number) } else { null() }
    }

    /// `key` then an integer.
    public mutating func field(_ name: String, _ number: Int) {
        key(name)
        value(Int64(number))
    }

    /// `key` then a number.
    public mutating func field(_ name: String, _ number: Double) {
        key(name)
        value(number)
    }

    /// `key` then a boolean.
    public mutating func field(_ name: String, _ flag: Bool) {
        key(name)
        value(flag)
    }

    /// `key` then a timestamp in ISO 8601 (`2017-02-14T07:26:55Z`), or null when nil.
    public mutating func field(_ name: String, _ timestamp: Timestamp?) {
        key(name)
        guard let timestamp else { return null() }
        prepareValue()
        bytes.append(UInt8(ascii: "\""))
        timestamp.appendISO8601(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `key` then any JSON value.
    public mutating func field(_ name: String, _ json: JSON) {
        key(name)
        value(json)
    }

    private mutating func appendInteger(_ number: Int64) {
        if number >= 0 && number < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var magnitude = number.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            if number < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        string.withBorrowedUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSON {
    /// The compact UTF-8 encoding of this value.
    public var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }

    /// The compact encoding as a String.
    public var encodedString: String { String(decoding: encoded, as: UTF8.self) }
}
