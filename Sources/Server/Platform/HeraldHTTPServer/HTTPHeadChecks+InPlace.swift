extension HTTPHeadChecks {
    /// A request head as libmicrohttpd 0.9.75 leaves it in its buffer, made from the bytes a client sent: each
    /// line's CR LF (or bare LF) zeroed, a field's colon zeroed, its value after the spaces and tabs that follow,
    /// name and value `strlen`-long. What `layout(of:fields:)` is checked against by its tests and its fuzzer
    /// (`Tests/Fuzz/FuzzHeaders`), on heads no server saw.
    ///
    /// ```swift
    /// let parsed = HTTPHeadChecks.InPlace(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))!
    /// let layout = parsed.head.withUnsafeBytes { HTTPHeadChecks.layout(of: $0, fields: parsed.fields) }
    /// ```
    public struct InPlace: Sendable {
        /// The head, up to and with the empty line that ends it, as parsed in place.
        public var head: [UInt8]
        /// Where each field's name and value are in `head`, in the order received.
        public var fields: [FieldPlacement] = []
        /// Whether a field's line holds a NUL.
        public var nul = false
        /// Whether a NUL hides bytes after it in a field's line (a NUL just before the line's end hides nothing).
        public var hidden = false
        /// Whether a line has no colon before any NUL: libmicrohttpd refuses the request, and the line is in no
        /// field.
        public var colonless = false

        /// `raw` parsed in place; nil for a head that does not end (no empty line) or holds a folded line (one
        /// starting with a space or tab, which libmicrohttpd moves).
        public init?(_ raw: [UInt8]) {
            head = raw
            var lineStart = 0
            var index = 0
            var firstLine = true
            while index < head.count {
                guard head[index] == 0x0A else {
                    index += 1
                    continue
                }
                // libmicrohttpd takes CR LF, else a bare LF; a lone CR stays in the line.
                let end = index > lineStart && head[index - 1] == 0x0D ? index - 1 : index
                let line = head[lineStart..<end]
                for zeroed in end...index { head[zeroed] = 0 }
                if end == lineStart {  // the empty line
                    head = Array(head[..<(index + 1)])
                    return
                }
                if !firstLine {
                    guard line.first != 0x20 && line.first != 0x09 else { return nil }  // folded
                    addField(line, lineStart: lineStart, end: end)
                }
                firstLine = false
                index += 1
                lineStart = index
            }
            return nil
        }

        /// Parses the field `line` (of `head[lineStart..<end]`, its line end zeroed already).
        private mutating func addField(_ line: ArraySlice<UInt8>, lineStart: Int, end: Int) {
            let name = line.prefix { $0 != 0 }  // strchr: a colon before any NUL
            guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else {
                colonless = true
                return
            }
            head[colon] = 0
            var value = colon + 1
            while head[value] == 0x20 || head[value] == 0x09 { value += 1 }
            let valueCount = head[value...].firstIndex(of: 0).map { $0 - value } ?? head.count - value
            fields.append(.init(name: lineStart, nameCount: colon - lineStart, value: value, valueCount: valueCount))
            if line.contains(0) { nul = true }
            // A byte other than NUL after the value's end in its line: what the client put after a NUL.
            if head[(value + valueCount)..<end].contains(where: { $0 != 0 }) { hidden = true }
        }
    }
}
