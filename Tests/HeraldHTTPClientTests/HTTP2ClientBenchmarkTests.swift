import Foundation
import HeraldHTTPClient
import Synchronization
import Testing

/// Throughput of HTTP2Client against a server of your choosing, for comparison with h2load on the same
/// server. Runs only when `HERALD_H2_BENCH_URL` is set, best in a release build:
///
///     HERALD_H2_BENCH_URL=https://127.0.0.1:8443/3/device/abc HERALD_H2_BENCH_CA=/tmp/ca.pem \
///     HERALD_H2_BENCH_BODY=/tmp/payload.json HERALD_H2_BENCH_CONCURRENCY=400 HERALD_H2_BENCH_REQUESTS=100000 \
///     swift test -c release -Xswiftc -enable-testing --filter HTTP2ClientBenchmark
@Suite("HTTP2Client benchmark")
struct HTTP2ClientBenchmarkTests {
    private static let environment = ProcessInfo.processInfo.environment

    @Test(
        "closed-loop POST throughput",
        .enabled(
            if: ProcessInfo.processInfo.environment["HERALD_H2_BENCH_URL"] != nil, "set HERALD_H2_BENCH_URL to run"))
    func throughput() async throws {
        let environment = Self.environment
        let url = try #require(environment["HERALD_H2_BENCH_URL"])
        let total = Int(environment["HERALD_H2_BENCH_REQUESTS"] ?? "") ?? 100_000
        let concurrency = Int(environment["HERALD_H2_BENCH_CONCURRENCY"] ?? "") ?? 400
        let body =
            try environment["HERALD_H2_BENCH_BODY"].map { try Array(Data(contentsOf: URL(fileURLWithPath: $0))) }
            ?? Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        let client = try HTTP2Client(
            configuration: .init(
                extraCAFile: environment["HERALD_H2_BENCH_CA"],
                maxConnectionsPerHost: Int(environment["HERALD_H2_BENCH_CONNECTIONS"] ?? "") ?? 4))
        defer { client.shutdown() }
        let request = HTTPClientRequest(
            method: "POST", url: url,
            headers: [("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-priority", "10")],
            body: body, timeout: .seconds(30))

        _ = try await ClosedLoop.run(client, request, total: min(total, 2_000), concurrency: concurrency)
        let openedBefore = client.connectionsOpened
        let started = ContinuousClock.now
        let outcome = try await ClosedLoop.run(client, request, total: total, concurrency: concurrency)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "HTTP2Client: \(total) requests, \(concurrency) concurrent, \(Int(Double(total) / seconds)) req/s,",
            "\(outcome.failures) failed, \(client.connectionsOpened - openedBefore) connections opened",
            outcome.firstFailure.map { "first failure: \($0)" } ?? "")
        #expect(outcome.failures == 0)
    }
}

/// Keeps `concurrency` requests in flight until `total` have completed; each completion sends the next.
private final class ClosedLoop: Sendable {
    struct Outcome {
        var failures: Int
        var firstFailure: HTTPClientError?
    }

    private let client: HTTP2Client
    private let request: HTTPClientRequest
    private let total: Int
    private let issued = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let firstFailure = Mutex<HTTPClientError?>(nil)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)

    private init(_ client: HTTP2Client, _ request: HTTPClientRequest, total: Int) {
        self.client = client
        self.request = request
        self.total = total
    }

    static func run(
        _ client: HTTP2Client, _ request: HTTPClientRequest, total: Int, concurrency: Int
    ) async throws -> Outcome {
        let loop = ClosedLoop(client, request, total: total)
        await withCheckedContinuation { continuation in
            loop.done.withLock { $0 = continuation }
            for _ in 0..<min(concurrency, total) { loop.sendNext() }
        }
        return Outcome(
            failures: loop.failures.load(ordering: .relaxed), firstFailure: loop.firstFailure.withLock { $0 })
    }

    private func sendNext() {
        guard issued.add(1, ordering: .relaxed).newValue <= total else { return }
        client.execute(request) { [self] result in
            if case .failure(let error) = result {
                failures.add(1, ordering: .relaxed)
                firstFailure.withLock { if $0 == nil { $0 = error } }
            }
            if completed.add(1, ordering: .relaxed).newValue == total {
                done.withLock {
                    $0?.resume(); $0 = nil
                }
            } else {
                sendNext()
            }
        }
    }
}
