import HeraldFuzzTargets
import HeraldHTTP

/// libFuzzer's entry point (scripts/fuzz builds this with `-sanitize=fuzzer,address -DFUZZING`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzQueryString(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
/// Built without libFuzzer: replays the files or directories named on the command line.
@main
enum Replay {
    static func main() { FuzzTargets.replay { fuzzQueryString($0) } }
}
#endif

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
