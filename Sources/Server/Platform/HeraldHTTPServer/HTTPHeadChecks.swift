import Foundation

/// The checks the server makes of a request head's fields, on the bytes libmicrohttpd hands over: pure functions,
/// so that they are tested and fuzzed on their own (`Tests/Fuzz/FuzzHeaders`).
package enum HTTPHeadChecks {
    /// Whether a field value holds a control byte (NUL included; horizontal tab allowed) or DEL: no header Herald
    /// reads has a use for them (RFC 9110 §5.5), and a NUL would cut the value where it is read as a C string.
    package static func hasControlBytes(_ value: UnsafeRawBufferPointer) -> Bool {
        value.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// A `Content-Length` value as a number: optional spaces or tabs around digits only, else nil. All digits past
    /// `Int.max` (which libmicrohttpd takes, up to `UInt64.max`) is `Int.max`, so that it is over every limit rather
    /// than no length at all.
    package static func contentLength(_ text: String) -> Int? {
        var digits = Substring(text).utf8[...]
        while let first = digits.first, first == 0x20 || first == 0x09 { digits = digits.dropFirst() }
        while let last = digits.last, last == 0x20 || last == 0x09 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for digit in digits {
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times10.addingReportingOverflow(Int(digit - 0x30))
            if overflowed || overflowedAgain { return Int.max }
            value = sum
        }
        return value
    }

    /// Why a body's end is ambiguous or unreadable (RFC 9112 §6.1, §6.3), from every `Content-Length` value
    /// (comma-separated lists split, each trimmed) and the `Transfer-Encoding` fields as received; nil when it is
    /// clear. libmicrohttpd reads a chunked body only when the one field says exactly `chunked` (in any case), and
    /// otherwise reads until the connection closes: anything else is refused.
    package static func framingError(contentLengths: Set<String>, transferEncodings: [String]) -> HTTPError? {
        if contentLengths.count > 1 {
            return HTTPError(.badRequest, field: "base", "conflicting Content-Length header fields")
        }
        guard !transferEncodings.isEmpty else { return nil }
        if !contentLengths.isEmpty {
            return HTTPError(.badRequest, field: "base", "both Content-Length and Transfer-Encoding")
        }
        if transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" { return nil }
        let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
        if codings.allSatisfy({ $0 == "chunked" }) {
            return HTTPError(.badRequest, field: "base", "Transfer-Encoding must be exactly chunked")
        }
        return HTTPError(
            .notImplemented, field: "base",
            "transfer coding \(codings.joined(separator: ", ")) is not supported; send chunked or a Content-Length")
    }

    /// Where a field's name and value lie in the request head, as byte offsets from its first byte.
    package struct FieldPlacement: Sendable, Equatable {
        package var name: Int
        package var nameCount: Int
        package var value: Int
        package var valueCount: Int

        package init(name: Int, nameCount: Int, value: Int, valueCount: Int) {
            self.name = name
            self.nameCount = nameCount
            self.value = value
            self.valueCount = valueCount
        }
    }

    /// What `layout(of:fields:)` found.
    package enum Layout: Sendable, Equatable {
        /// Every byte of the head is in a field's name or value, the request line, or the separators.
        case clean
        /// A field's line holds bytes past a NUL that its value does not show (`Bearer <token>\0junk`).
        case hiddenBytes
        /// A field is not where its line was: libmicrohttpd moved it (a value folded over several lines, RFC 9112
        /// §5.2 obs-fold), or a libmicrohttpd that parses otherwise.
        case notInPlace
    }

    /// Whether the fields of a request head account for every byte of their lines, as libmicrohttpd 0.9.75 leaves
    /// them in its buffer. It parses the head in place: each line's CR and LF become NUL, the colon after a name
    /// becomes NUL, the value starts after the spaces and tabs that follow, and the name's and value's lengths are
    /// `strlen`: a NUL the client sent ends the value there and the rest of its line is never seen (no API tells
    /// it). So, in `head` (from the request line's first byte to the end of the empty line closing the head) and
    /// with `fields` in the order received: between one value's end and the next name there may only be the one
    /// or two NULs of a line end; between a name and its value, the colon's NUL and spaces or tabs; after the last
    /// value, NULs only (its line end and the empty line).
    package static func layout(of head: UnsafeRawBufferPointer, fields: [FieldPlacement]) -> Layout {
        var previousEnd: Int?
        for field in fields {
            guard field.name >= 0, field.nameCount >= 0, field.valueCount >= 0,
                field.name + field.nameCount < field.value, field.value + field.valueCount <= head.count,
                previousEnd.map({ $0 < field.name }) ?? true
            else { return .notInPlace }
            if let previousEnd {
                // One NUL for a bare LF, two for CRLF; a third was the client's.
                guard field.name - previousEnd <= 2, head[previousEnd..<field.name].allSatisfy({ $0 == 0 }) else {
                    return .hiddenBytes
                }
            }
            let colon = field.name + field.nameCount
            guard head[colon] == 0,
                head[(colon + 1)..<field.value].allSatisfy({ $0 == 0x20 || $0 == 0x09 })
            else { return .hiddenBytes }
            previousEnd = field.value + field.valueCount
        }
        if let previousEnd {
            // The last line's end and the empty line: two to four NULs.
            guard head.count - previousEnd <= 4, head[previousEnd...].allSatisfy({ $0 == 0 }) else {
                return .hiddenBytes
            }
        }
        return .clean
    }
}
