/// What a `Range` header asks of a representation of a known size (RFC 9110 §14).
///
/// ```swift
/// ByteRange.parse("bytes=0-99", size: 1000)     // .partial(0..<100)
/// ByteRange.parse("bytes=-100", size: 1000)     // .partial(900..<1000)
/// ByteRange.parse("bytes=5000-", size: 1000)    // .unsatisfiable
/// ```
enum ByteRange: Sendable, Equatable {
    /// Serve the whole representation with 200: no usable range (absent, malformed, another unit, or several
    /// ranges, which a server may answer in full).
    case whole
    /// Serve these bytes with 206.
    case partial(Range<Int64>)
    /// Answer 416: the only range asked for starts beyond the end.
    case unsatisfiable

    /// Interprets the `Range` header `value` (nil when absent) for a representation of `size` bytes.
    static func parse(_ value: String?, size: Int64) -> ByteRange {
        guard let value else { return .whole }
        let text = trimmed(value.utf8[...])
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")),
            trimmed(text[..<equals]).lazy.map({ $0 | 0x20 }).elementsEqual("bytes".utf8)
        else { return .whole }
        let spec = text[text.index(after: equals)...]
        guard !spec.contains(UInt8(ascii: ",")), let dash = spec.firstIndex(of: UInt8(ascii: "-")) else {
            return .whole
        }
        let first = trimmed(spec[..<dash])
        let last = trimmed(spec[spec.index(after: dash)...])
        if first.isEmpty {
            // bytes=-n: the last n bytes.
            guard let count = digits(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - count)..<size)
        }
        guard let start = digits(first) else { return .whole }
        if last.isEmpty {
            return start < size ? .partial(start..<size) : .unsatisfiable
        }
        guard let end = digits(last), end >= start else { return .whole }
        return start < size ? .partial(start..<min(end, size - 1) + 1) : .unsatisfiable
    }

    private static func trimmed(_ text: Substring.UTF8View) -> Substring.UTF8View {
        var slice = text
        while slice.first == UInt8(ascii: " ") || slice.first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while slice.last == UInt8(ascii: " ") || slice.last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return slice
    }

    /// A non-empty run of decimal digits as a number, saturating at `Int64.max` (huge positions are valid syntax).
    private static func digits(_ text: Substring.UTF8View) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return Int64.max }
            value = sum
        }
        return value
    }
}
