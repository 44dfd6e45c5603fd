import HeraldCrypto
import HeraldFuzzTargets
import HeraldHTTPServer
import HeraldModel

/// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's driver; built plainly: replays the
/// files and directories named on the command line.
@main
enum Fuzzer {
    static func main() {
        FuzzTargets.main { data, size in
            fuzzHeaders(FuzzTargets.bytes(data, size))
            return 0
        }
    }
}

/// The input as the header fields of a request head (`Name: value` lines, CRLF or bare LF): parsed in place the way
/// libmicrohttpd 0.9.75 does, then every check Herald makes of header fields: the head layout (a NUL hiding bytes
/// must be found, a head without NUL must pass), control bytes, `Content-Length` (no overflow), framing, the
/// bearer token, `If-None-Match`, the device signature's timestamp and hex signature, HTTP dates.
func fuzzHeaders(_ bytes: [UInt8]) {
    let raw = Array("GET / HTTP/1.1\r\n".utf8) + bytes + Array("\r\n\r\n".utf8)
    guard let (head, fields, nul, hidden) = parsedInPlace(raw) else { return }
    let layout = head.withUnsafeBytes { HTTPHeadChecks.layout(of: $0, fields: fields) }
    if hidden && layout == .clean { fatalError("a NUL hiding bytes passed the layout check") }
    if !nul && layout != .clean { fatalError("a head without NUL failed the layout check: \(layout)") }

    var headers: [(name: String, value: String)] = []
    var contentLengths: Set<String> = []
    var transferEncodings: [String] = []
    for field in fields {
        let valueBytes = Array(head[field.value..<(field.value + field.valueCount)])
        let control = valueBytes.withUnsafeBytes { HTTPHeadChecks.hasControlBytes($0) }
        if control != valueBytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            fatalError("control bytes misjudged")
        }
        let name = String(decoding: head[field.name..<(field.name + field.nameCount)], as: UTF8.self).lowercased()
        let value = String(decoding: valueBytes, as: UTF8.self)
        headers.append((name, value))
        if let length = HTTPHeadChecks.contentLength(value) {
            if length < 0 { fatalError("negative Content-Length") }
            let digits = valueBytes.filter { $0 != 0x20 && $0 != 0x09 }
            if digits.count <= 18, length != Int(String(decoding: digits, as: UTF8.self)) {
                fatalError("Content-Length misread")
            }
        }
        if name == "content-length" {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                contentLengths.insert(item.trimmingCharacters(in: .whitespaces))
            }
        } else if name == "transfer-encoding" {
            transferEncodings.append(value)
        }
        _ = EntityTag.ifNoneMatch(value, matches: "\"abc\"")
        _ = DeviceRequestSignature.isFresh(timestampHeader: value, now: Timestamp(milliseconds: 1_700_000_000_000))
        if let decoded = Hex.decode(value.lowercased()), decoded.count * 2 != value.utf8.count {
            fatalError("hex decoded to the wrong length")
        }
        _ = HTTPDate.parse(value)
    }
    _ = HTTPHeadChecks.framingError(contentLengths: contentLengths, transferEncodings: transferEncodings)
    let request = HTTPRequest(method: .get, target: "/", headers: headers)
    if let token = request.bearerToken, token.isEmpty || token.first == " " || token.last == " " {
        fatalError("bearer token not trimmed")
    }
}

/// `raw` as libmicrohttpd 0.9.75 leaves a head in its buffer (each line's CR LF or LF zeroed, a field's colon
/// zeroed, its value after the spaces and tabs that follow, name and value `strlen`-long), its fields, whether a
/// field's line holds a NUL, and whether a NUL hides bytes after it (a NUL just before the line's end hides
/// nothing); nil for what libmicrohttpd refuses or moves (a line without a colon, a folded line) or a head that does
/// not end.
func parsedInPlace(_ raw: [UInt8]) -> (
    head: [UInt8], fields: [HTTPHeadChecks.FieldPlacement], nul: Bool, hidden: Bool
)? {
    var bytes = raw
    var fields: [HTTPHeadChecks.FieldPlacement] = []
    var nul = false
    var hidden = false
    var lineStart = 0
    var index = 0
    var firstLine = true
    func strlen(_ from: Int) -> Int { bytes[from...].firstIndex(of: 0).map { $0 - from } ?? bytes.count - from }
    while index < bytes.count {
        guard bytes[index] == 0x0A else {
            index += 1
            continue
        }
        // libmicrohttpd takes CR LF, else a bare LF; a lone CR stays in the line.
        let end = index > lineStart && bytes[index - 1] == 0x0D ? index - 1 : index
        let line = bytes[lineStart..<end]
        for zeroed in end...index { bytes[zeroed] = 0 }
        if end == lineStart { return (Array(bytes[..<(index + 1)]), fields, nul, hidden) }  // the empty line
        if !firstLine {
            if line.first == 0x20 || line.first == 0x09 { return nil }  // folded
            let name = line.prefix { $0 != 0 }  // strchr: a colon before any NUL
            guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            bytes[colon] = 0
            var value = colon + 1
            while bytes[value] == 0x20 || bytes[value] == 0x09 { value += 1 }
            let valueCount = strlen(value)
            fields.append(
                .init(name: lineStart, nameCount: colon - lineStart, value: value, valueCount: valueCount))
            if line.contains(0) { nul = true }
            // A byte other than NUL after the value's end in its line: what the client put after a NUL.
            if bytes[(value + valueCount)..<end].contains(where: { $0 != 0 }) { hidden = true }
        }
        firstLine = false
        index += 1
        lineStart = index
    }
    return nil
}
