import HeraldModel
import HeraldFuzzTargets
import HeraldHTTPServer

/// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's driver; built plainly: replays the
/// files and directories named on the command line.
@main
enum Fuzzer {
    static func main() {
        FuzzTargets.main { data, size in
            fuzzQueryString(FuzzTargets.bytes(data, size))
            return 0
        }
    }
}

/// The request-target splitter and query-string parser on the input as UTF-8 (invalid bytes repaired); decoding
/// what `percentEncoded` wrote must give back the text.
func fuzzQueryString(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    _ = QueryString.split(text)
    _ = QueryString.parse(text)
    _ = QueryString.percentDecoded(text, plusIsSpace: true)
    if QueryString.percentDecoded(QueryString.percentEncoded(text), plusIsSpace: false) != text {
        fatalError("percent-encoding does not decode back")
    }
}
