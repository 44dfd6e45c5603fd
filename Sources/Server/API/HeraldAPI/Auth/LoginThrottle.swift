import HeraldHTTPServer
import Synchronization

/// Failed password checks, counted per account and client address together: after `freeFailures` failures from one
/// address on one account, each further attempt from there waits — 5 s after the last failure, doubling with each
/// failure, at most 15 minutes — until a success clears the count. Nobody else's failures count against an address,
/// so an attacker guessing from theirs slows down only themselves and never locks the owner out; the per-address
/// bucket (`RateLimits.authPerAddress`) bounds how many accounts one address tries.
///
/// In this process's memory, like `RateLimiter`: per node.
///
/// ```swift
/// try throttle.check(account: "1:ann@example.com", address: "203.0.113.9")   // 429 while waiting
/// valid ? throttle.succeeded(…) : throttle.failed(…)
/// ```
final class LoginThrottle: Sendable {
    private struct Record {
        var failures: Int
        var lastFailure: Double
    }

    /// Failures allowed before the delays start (0: no throttle).
    let freeFailures: Int
    /// The first delay, in seconds; each further failure doubles it.
    static let firstDelay = 5.0
    /// The longest delay, in seconds.
    static let longestDelay = 900.0
    private let now: @Sendable () -> Double
    private let records = Mutex<[String: Record]>([:])
    private let tidyAbove: Int

    init(
        freeFailures: Int, tidyAbove: Int = 100_000,
        now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.freeFailures = freeFailures
        self.tidyAbove = tidyAbove
        self.now = now
    }

    /// Seconds `failures` failures make the next attempt wait after the last of them.
    func delay(afterFailures failures: Int) -> Double {
        guard freeFailures > 0, failures >= freeFailures else { return 0 }
        let doublings = min(failures - freeFailures, 20)
        return min(Self.longestDelay, Self.firstDelay * Double(1 << doublings))
    }

    /// Whole seconds until `address` may try `account` again; nil when it may now.
    func wait(account: String, address: String?) -> Int? {
        guard freeFailures > 0, let record = records.withLock({ $0[Self.key(account, address)] }) else { return nil }
        let left = record.lastFailure + delay(afterFailures: record.failures) - now()
        return left > 0 ? max(1, Int(left.rounded(.up))) : nil
    }

    /// Throws the 429 that says when `address` may try `account` again, if it must wait.
    func check(account: String, address: String?) throws {
        if let retryAfter = wait(account: account, address: address) {
            throw RateLimiter.tooManyRequests(retryAfter: retryAfter)
        }
    }

    /// A wrong password for `account` from `address`.
    func failed(account: String, address: String?) {
        guard freeFailures > 0 else { return }
        let time = now()
        records.withLock { records in
            records[Self.key(account, address), default: Record(failures: 0, lastFailure: time)].failures += 1
            records[Self.key(account, address)]?.lastFailure = time
            if records.count > tidyAbove {
                records = records.filter { $0.value.lastFailure + Self.longestDelay > time }
            }
        }
    }

    /// The right password for `account` from `address`: its failures are forgotten.
    func succeeded(account: String, address: String?) {
        guard freeFailures > 0 else { return }
        _ = records.withLock { $0.removeValue(forKey: Self.key(account, address)) }
    }

    private static func key(_ account: String, _ address: String?) -> String { account + "\n" + (address ?? "-") }
}
