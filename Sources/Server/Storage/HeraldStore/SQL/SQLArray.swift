/// Values bound as one PostgreSQL array: its text form (`{1,NULL,3}`, `{"a","b \"c\""}`) and its element type,
/// for statements that take a column's values of many rows at once (`insertRows`).
package enum SQLArray {
    /// The element type of `values` (`bigint`, `float8`, `text`, `bytea`, from the first that is not NULL); nil
    /// when every one is NULL.
    static func type<Values: Sequence<SQLValue>>(of values: Values) -> String? {
        for value in values {
            switch value {
            case .null: continue
            case .integer: return "bigint"
            case .real: return "float8"
            case .text: return "text"
            case .blob: return "bytea"
            }
        }
        return nil
    }

    /// The array's text form, as PostgreSQL's array input reads it: integers as they are, text, bytes and reals
    /// quoted with `"` and `\` escaped, NULL unquoted.
    static func literal<Values: Sequence<SQLValue>>(_ values: Values) -> String {
        var text: [UInt8] = [UInt8(ascii: "{")]
        text.reserveCapacity(256)
        for value in values {
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            switch value {
            case .null: text += "NULL".utf8
            case .integer(let number): text += String(number).utf8
            case .real(let number): appendQuoted(realLiteral(number).utf8, to: &text)
            case .text(let string): appendQuoted(string.utf8, to: &text)
            case .blob(let bytes):
                let digits = Array("0123456789abcdef".utf8)
                text += "\"\\\\x".utf8
                for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
                text.append(UInt8(ascii: "\""))
            }
        }
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }

    private static func appendQuoted(_ element: some Sequence<UInt8>, to text: inout [UInt8]) {
        text.append(UInt8(ascii: "\""))
        for byte in element {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
            text.append(byte)
        }
        text.append(UInt8(ascii: "\""))
    }

    /// A double as PostgreSQL's float input reads it back exactly (Swift's shortest round-trip digits).
    package static func realLiteral(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return "\(number)"
    }
}
