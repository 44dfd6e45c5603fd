import Foundation
import Testing

/// Throughput measurements, run only when `HERALD_CRYPTO_BENCH` is set (use a release build:
/// `swift test -c release --filter HeraldCryptoTests`), since timings in a shared debug build prove nothing.
enum Benchmark {
    /// Whether benchmark tests should run.
    static let isEnabled = ProcessInfo.processInfo.environment["HERALD_CRYPTO_BENCH"] != nil

    /// Runs `body` `iterations` times, prints and returns operations per second.
    @discardableResult
    static func measure(_ name: String, iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for _ in 0..<iterations { try body() }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = Double(iterations) / seconds
        let milliseconds = String(format: "%.4f", seconds * 1000 / Double(iterations))
        print("benchmark \(name): \(Int(rate)) ops/s, \(milliseconds) ms/op")
        return rate
    }

    /// Expects the resident set not to grow by 4 MiB or more over `iterations` calls of `body`, after a warm-up of a
    /// tenth as many; prints the growth. A leak of even one small OpenSSL object per call shows up as megabytes.
    static func expectNoLeak(
        _ name: String, iterations: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) rethrows {
        for _ in 0..<max(1, iterations / 10) { try body() }
        let before = residentBytes()
        for _ in 0..<iterations { try body() }
        let growth = residentBytes() - before
        print("memory \(name): RSS growth over \(iterations) calls \(growth / 1024) KiB")
        #expect(growth < 4 << 20, "\(name): RSS grew by \(growth / 1024) KiB", sourceLocation: sourceLocation)
    }

    /// Resident set size of this process in bytes (Linux; 0 elsewhere).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
