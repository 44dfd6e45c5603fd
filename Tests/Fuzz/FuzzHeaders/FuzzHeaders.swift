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
    // What libmicrohttpd refuses (a line without a colon) or moves (a folded line) never reaches the checks.
    guard let parsed = HTTPHeadChecks.InPlace(raw), !parsed.colonless else { return }
    let (head, fields, nul, hidden) = (parsed.head, parsed.fields, parsed.nul, parsed.hidden)
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
