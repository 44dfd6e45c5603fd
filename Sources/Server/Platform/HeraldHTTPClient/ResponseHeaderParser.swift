/// Turns an HTTP/1.1 response's header block (the lines after the status line) into name/value pairs.
enum ResponseHeaderParser {
    /// Parses `name: value` lines separated by LF or CRLF. Names are lowercased and values trimmed; lines
    /// without a colon are skipped and obsolete folded lines join the previous value.
    static func parse(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        bytes.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            while lineStart < buffer.count {
                var lineEnd = lineStart
                while lineEnd < buffer.count && buffer[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                let next = lineEnd + 1
                if lineEnd > lineStart && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                parseLine(buffer, lineStart, lineEnd, into: &headers)
                lineStart = next
            }
        }
        return headers
    }

    private static func parseLine(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
        into headers: inout [(name: String, value: String)]
    ) {
        guard start < end else { return }
        if isWhitespace(buffer[start]) {
            // obs-fold: a continuation of the previous field's value.
            guard !headers.isEmpty else { return }
            let (valueStart, valueEnd) = trim(buffer, start, end)
            if valueStart < valueEnd {
                headers[headers.count - 1].value += " " + decode(buffer, valueStart, valueEnd)
            }
            return
        }
        var colon = start
        while colon < end && buffer[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < end, colon > start else { return }
        let name = String(unsafeUninitializedCapacity: colon - start) { name in
            for index in start..<colon { name[index - start] = lowercased(buffer[index]) }
            return colon - start
        }
        let (valueStart, valueEnd) = trim(buffer, colon + 1, end)
        headers.append((name: name, value: decode(buffer, valueStart, valueEnd)))
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func trim(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
        var start = start
        var end = end
        while start < end && isWhitespace(buffer[start]) { start += 1 }
        while end > start && isWhitespace(buffer[end - 1]) { end -= 1 }
        return (start, end)
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
    }
}
