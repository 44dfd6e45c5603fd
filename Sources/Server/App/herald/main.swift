import CJemalloc
import HeraldServer

// jemalloc is linked in for malloc and free: the delivery dispatcher makes a push's objects and the HTTP/2 event
// loop frees them, and glibc's malloc serialises such cross-thread frees on the making thread's arena lock (perf
// showed the event loop blocked on it ~1,100 times a second at 15k pushes/s); with jemalloc Herald spends 10-25 %
// less CPU per push (bench/RESULTS.md). `herald version` says which allocator runs.
Command.allocator = jemallocVersion().map { "jemalloc \($0)" } ?? Command.allocator

/// jemalloc's version, if jemalloc is the allocator this process runs with.
func jemallocVersion() -> String? {
    var version: UnsafePointer<CChar>?
    var length = MemoryLayout<UnsafePointer<CChar>?>.size
    guard mallctl("version", &version, &length, nil, 0) == 0, let version else { return nil }
    return String(cString: version)
}

await Command.main(arguments: Array(CommandLine.arguments.dropFirst()))
