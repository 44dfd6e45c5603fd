import HeraldFuzzTargets
/// libFuzzer's entry point (scripts/fuzz builds this with `-sanitize=fuzzer,address -DFUZZING`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTargets.ndjson(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if !FUZZING
/// Built without libFuzzer: replays the files or directories named on the command line.
@main
enum Replay {
    static func main() { FuzzTargets.replay { FuzzTargets.ndjson($0) } }
}
#endif
