import Foundation
import HeraldHTTPClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Closed-loop POST throughput of HTTP2Client against one server, with the process's CPU time per request.
/// Driven by `bench/client/run`, which runs h2load against the same server in the same run. Settings come from
/// the environment:
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `BENCH_URL` | base URL; requests go to `<BENCH_URL>/3/device/<token>` | required |
/// | `BENCH_CA` | extra CA file | none |
/// | `BENCH_REQUESTS` | requests measured | 100000 |
/// | `BENCH_CONNECTIONS` | connections (min = max per host) | 4 |
/// | `BENCH_STREAMS` | streams per connection; requests in flight = connections × streams | 100 |
/// | `BENCH_BODY` | file sent as the body | a 60-byte alert |
/// | `BENCH_SLOW_EVERY` | every Nth request goes to a token starting with `BENCH_SLOW_PREFIX` (0: none) | 0 |
/// | `BENCH_SLOW_PREFIX` | the slow tokens' prefix | c0ffee |
/// | `BENCH_EVENT_LOOPS` | event-loop threads | 1 |
///
/// Prints one JSON line: requests, seconds, rps, cpu_us_per_request, failures, first_failure, connections,
/// slow_p50_ms, fast_p99_ms.
@main
struct HTTP2ClientBench {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        func number(_ name: String, _ fallback: Int) -> Int { environment[name].flatMap { Int($0) } ?? fallback }
        guard let base = environment["BENCH_URL"] else {
            FileHandle.standardError.write(Data("set BENCH_URL\n".utf8))
            exit(2)
        }
        let total = number("BENCH_REQUESTS", 100_000)
        let connections = number("BENCH_CONNECTIONS", 4)
        let streams = number("BENCH_STREAMS", 100)
        let slowEvery = number("BENCH_SLOW_EVERY", 0)
        let slowPrefix = environment["BENCH_SLOW_PREFIX"] ?? "c0ffee"
        let body =
            try environment["BENCH_BODY"].map { try Array(Data(contentsOf: URL(fileURLWithPath: $0))) }
            ?? Array(#"{"aps":{"alert":{"title":"Hello","body":"A benchmark push"},"sound":"default"}}"#.utf8)

        var configuration = HTTP2Client.Configuration(extraCAFile: environment["BENCH_CA"])
        configuration.maxConnectionsPerHost = connections
        configuration.minConnectionsPerHost = connections
        configuration.maxConcurrentStreamsPerConnection = streams
        configuration.eventLoops = number("BENCH_EVENT_LOOPS", 1)
        let client = try HTTP2Client(configuration: configuration)
        defer { client.shutdown() }

        func request(_ token: String) -> HTTPClientRequest {
            HTTPClientRequest(
                method: "POST", url: base + "/3/device/" + token,
                headers: [
                    ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-priority", "10"),
                    ("apns-id", "7C7B3A9E-2D1F-4F6B-9A55-6D2C1E0B8F11"),
                ],
                body: body, timeout: .seconds(60))
        }
        let fast = request(String(repeating: "ab", count: 32))
        let slow = request(slowPrefix + String(repeating: "ab", count: 29))
        let concurrency = connections * streams

        _ = await ClosedLoop.run(
            client, fast, slow, slowEvery: slowEvery, total: min(total, 20_000), concurrency: concurrency)
        let cpuBefore = cpuSeconds()
        let started = ContinuousClock.now
        let outcome = await ClosedLoop.run(
            client, fast, slow, slowEvery: slowEvery, total: total, concurrency: concurrency)
        let elapsed = ContinuousClock.now - started
        let cpu = cpuSeconds() - cpuBefore
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let line: [String: Any] = [
            "requests": total, "seconds": seconds, "rps": Double(total) / seconds,
            "cpu_us_per_request": cpu * 1e6 / Double(total), "failures": outcome.failures,
            "first_failure": outcome.firstFailure.map { "\($0)" } ?? "", "connections": client.connectionsOpened,
            "slow_p50_ms": outcome.slowMedianMilliseconds, "fast_p99_ms": outcome.fastP99Milliseconds,
        ]
        let json = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// User + system CPU seconds of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
