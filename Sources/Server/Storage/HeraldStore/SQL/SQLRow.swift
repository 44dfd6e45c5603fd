import HeraldModel

/// One result row, read by column position (queries list their columns, so positions are known).
package struct SQLRow: Sendable {
    /// The values, in the query's column order.
    package var values: [SQLValue]

    /// A row of `values`.
    package init(values: [SQLValue]) { self.values = values }

    /// The column at `index` as an integer (0 for NULL; text digits are parsed).
    package func int(_ index: Int) -> Int64 {
        switch values[index] {
        case .integer(let value): return value
        case .real(let value): return Int64(value)
        case .text(let text): return Int64(text) ?? 0
        default: return 0
        }
    }

    /// The column at `index` as an optional integer.
    package func optionalInt(_ index: Int) -> Int64? {
        if case .null = values[index] { return nil }
        return int(index)
    }

    /// The column at `index` as a Double.
    package func double(_ index: Int) -> Double {
        switch values[index] {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .text(let text): return Double(text) ?? 0
        default: return 0
        }
    }

    /// The column at `index` as text ("" for NULL).
    package func text(_ index: Int) -> String { optionalText(index) ?? "" }

    /// The column at `index` as optional text.
    package func optionalText(_ index: Int) -> String? {
        switch values[index] {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .null: return nil
        }
    }

    /// The column at `index` as bytes.
    package func blob(_ index: Int) -> [UInt8] {
        switch values[index] {
        case .blob(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        default: return []
        }
    }

    /// The column at `index` as a boolean (non-zero).
    package func bool(_ index: Int) -> Bool { int(index) != 0 }

    /// The column at `index` as a timestamp in milliseconds.
    package func timestamp(_ index: Int) -> Timestamp { Timestamp(milliseconds: int(index)) }

    /// The column at `index` as an optional timestamp.
    package func optionalTimestamp(_ index: Int) -> Timestamp? { optionalInt(index).map(Timestamp.init(milliseconds:)) }
}

extension Timestamp: SQLBindable {
    package var sqlValue: SQLValue { .integer(milliseconds) }
}
