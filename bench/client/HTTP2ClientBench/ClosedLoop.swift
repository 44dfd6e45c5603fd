import HeraldHTTPClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps `concurrency` requests in flight until `total` have completed; each completion sends the next.
/// Every `slowEvery`-th request is the slow one. Latencies are kept per kind for the medians printed.
final class ClosedLoop: Sendable {
    struct Outcome {
        var failures: Int
        var firstFailure: HTTPClientError?
        var slowMedianMilliseconds: Double
        var fastP99Milliseconds: Double
    }

    private let client: HTTP2Client
    private let fast: HTTPClientRequest
    private let slow: HTTPClientRequest
    private let slowEvery: Int
    private let total: Int
    private let issued = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let firstFailure = Mutex<HTTPClientError?>(nil)
    private let latencies = Mutex<(slow: [Double], fast: [Double])>(([], []))
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)

    private init(
        _ client: HTTP2Client, _ fast: HTTPClientRequest, _ slow: HTTPClientRequest, slowEvery: Int, total: Int
    ) {
        self.client = client
        self.fast = fast
        self.slow = slow
        self.slowEvery = slowEvery
        self.total = total
    }

    static func run(
        _ client: HTTP2Client, _ fast: HTTPClientRequest, _ slow: HTTPClientRequest, slowEvery: Int, total: Int,
        concurrency: Int
    ) async -> Outcome {
        let loop = ClosedLoop(client, fast, slow, slowEvery: slowEvery, total: total)
        await withCheckedContinuation { continuation in
            loop.done.withLock { $0 = continuation }
            for _ in 0..<min(concurrency, total) { loop.sendNext() }
        }
        let (slow, fast) = loop.latencies.withLock { ($0.slow.sorted(), $0.fast.sorted()) }
        return Outcome(
            failures: loop.failures.load(ordering: .relaxed), firstFailure: loop.firstFailure.withLock { $0 },
            slowMedianMilliseconds: slow.isEmpty ? 0 : slow[slow.count / 2],
            fastP99Milliseconds: fast.isEmpty ? 0 : fast[fast.count * 99 / 100])
    }

    private func sendNext() {
        let number = issued.add(1, ordering: .relaxed).newValue
        guard number <= total else { return }
        let isSlow = slowEvery > 0 && number % slowEvery == 0
        let sampled = isSlow || number % 64 == 0
        let started = sampled ? Self.milliseconds() : 0
        client.execute(isSlow ? slow : fast) { [self] result in
            if case .failure(let error) = result {
                failures.add(1, ordering: .relaxed)
                firstFailure.withLock { if $0 == nil { $0 = error } }
            }
            if sampled {
                let latency = Self.milliseconds() - started
                latencies.withLock { if isSlow { $0.slow.append(latency) } else { $0.fast.append(latency) } }
            }
            if completed.add(1, ordering: .relaxed).newValue == total {
                done.withLock {
                    $0?.resume()
                    $0 = nil
                }
            } else {
                sendNext()
            }
        }
    }

    private static func milliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
}
