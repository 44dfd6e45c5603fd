import HeraldStore

/// Reads a value PostgreSQL sent in text format into a `SQLValue`, by its column's type: integers (int2, int4,
/// int8, oid) as `.integer`, float4, float8 and numeric as `.real`, bool as `.integer` 0 or 1, bytea (hex or
/// escape output) as `.blob`, void as `.null`, and everything else (text, varchar, json, …) as `.text`.
enum PostgresValueDecoder {
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, type: PostgresType) -> SQLValue {
        switch type {
        case .int8, .int4, .int2, .oidType:
            if let number = integer(bytes) { return .integer(number) }
            return .text(String(decoding: bytes, as: UTF8.self))
        case .float8, .float4, .numeric:
            let text = String(decoding: bytes, as: UTF8.self)
            return Double(text).map(SQLValue.real) ?? .text(text)
        case .bool:
            return .integer(bytes.first == UInt8(ascii: "t") ? 1 : 0)
        case .bytea:
            return .blob(bytea(bytes))
        case .void:
            return .null
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A decimal integer, or nil when it is not one or does not fit in 64 bits.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { index = 1 }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulate negatively so that Int64.min parses.
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflow, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// bytea output: `\x` and hex digits (the default), or the older escape format (`\\`, `\ooo`, plain bytes).
    static func bytea(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") {
            var out: [UInt8] = []
            out.reserveCapacity((bytes.count - 2) / 2)
            var index = 2
            while index + 1 < bytes.count {
                out.append(hexValue(bytes[index]) << 4 | hexValue(bytes[index + 1]))
                index += 2
            }
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\") {
                out.append(UInt8(ascii: "\\"))
                index += 2
            } else if bytes[index] == UInt8(ascii: "\\"), index + 3 < bytes.count {
                let octal = (bytes[index + 1] &- 48) << 6 | (bytes[index + 2] &- 48) << 3 | (bytes[index + 3] &- 48)
                out.append(octal)
                index += 4
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return 0
        }
    }
}
