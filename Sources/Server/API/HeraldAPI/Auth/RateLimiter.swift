import Foundation
import HeraldHTTPServer
import Synchronization

/// Token buckets by key (a client address, an account, a business, an install, a POS key), in this process's
/// memory: with several nodes on one PostgreSQL database each node counts on its own, so the limit a client meets
/// is per node.
///
/// A bucket holds up to `burst` tokens and gains `perSecond` a second; a call takes one or is refused with the
/// seconds until one is there (`Retry-After`).
final class RateLimiter: Sendable {
    /// How much a key may do.
    struct Rate: Sendable, Equatable {
        /// Calls at once after a quiet spell.
        var burst: Double
        /// Calls a second in the long run.
        var perSecond: Double

        /// No limit.
        static let none = Rate(burst: 0, perSecond: 0)
        /// `count` calls a minute, all of them at once if saved up.
        static func perMinute(_ count: Int) -> Rate { Rate(burst: Double(count), perSecond: Double(count) / 60) }
        /// `count` calls a second, with up to two seconds' worth at once.
        static func perSecond(_ count: Int) -> Rate { Rate(burst: Double(count) * 2, perSecond: Double(count)) }
    }

    /// What is limited (0 calls: no limit).
    let rate: Rate
    private let now: @Sendable () -> Double
    private let buckets = Mutex<[String: TokenBucket]>([:])
    /// Beyond this many keys, full buckets (keys idle long enough to have refilled) are forgotten.
    private let tidyAbove: Int

    init(_ rate: Rate, tidyAbove: Int = 100_000, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.rate = rate
        self.now = now
        self.tidyAbove = tidyAbove
    }

    /// Seconds since an arbitrary fixed point, never going back.
    @Sendable static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Takes a token for `key`: nil when there was one, else the whole seconds until there is.
    func take(_ key: String) -> Int? {
        guard rate.perSecond > 0 else { return nil }
        let time = now()
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? TokenBucket(full: rate, at: time)
            bucket.refill(rate, at: time)
            defer {
                buckets[key] = bucket
                if buckets.count > tidyAbove { tidy(&buckets, at: time) }
            }
            if let wait = bucket.wait(rate) { return wait }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Takes a token for `key` or throws the 429 that says when to retry.
    func check(_ key: String) throws {
        if let retryAfter = take(key) { throw Self.tooManyRequests(retryAfter: retryAfter) }
    }

    /// 429 in Punchh's error shape, with `Retry-After`.
    static func tooManyRequests(retryAfter: Int) -> HTTPError {
        HTTPError(
            HTTPStatus(429), field: "base", "Too many requests. Please retry in \(retryAfter) s.",
            headers: [(name: "retry-after", value: String(retryAfter))])
    }

    private func tidy(_ buckets: inout [String: TokenBucket], at time: Double) {
        buckets = buckets.filter { !$0.value.isFull(rate, at: time) }
    }
}

/// Tokens for calls: up to a rate's `burst`, gaining its `perSecond` a second.
struct TokenBucket {
    var tokens: Double
    /// When `tokens` was counted (seconds, monotonic).
    var updated: Double

    /// A bucket holding all of `rate`'s burst at `time`.
    init(full rate: RateLimiter.Rate, at time: Double) {
        tokens = rate.burst
        updated = time
    }

    /// Adds what `rate` gained since it was last counted.
    mutating func refill(_ rate: RateLimiter.Rate, at time: Double) {
        tokens = min(rate.burst, tokens + max(0, time - updated) * rate.perSecond)
        updated = max(updated, time)
    }

    /// Nil when a token is there, else the whole seconds until `rate` brings one.
    func wait(_ rate: RateLimiter.Rate) -> Int? {
        tokens >= 1 ? nil : max(1, Int(((1 - tokens) / rate.perSecond).rounded(.up)))
    }

    /// Whether it would hold its whole burst at `time`: a key idle that long may be forgotten.
    func isFull(_ rate: RateLimiter.Rate, at time: Double) -> Bool {
        tokens + max(0, time - updated) * rate.perSecond >= rate.burst
    }
}

/// Every rate limit of the APIs, from the configuration.
struct RateLimits: Sendable {
    /// Sign-ups, logins and password checks from one client address.
    let authPerAddress: RateLimiter
    /// Failed password checks on one account (an email) from one address, delayed when they keep failing.
    let authPerAccount: LoginThrottle
    /// Mobile API calls of one business (its client id) made before signing in, once their digest holds: each client
    /// address a fair share of it (the secret that signs them is in every copy of the app).
    let mobilePerBusiness: FairShareLimiter
    /// Signed-in mobile API calls of one user, once digest and session hold.
    let mobilePerUser: RateLimiter
    /// Device API calls of one install, once their signature holds.
    let devicePerInstall: RateLimiter
    /// Install registrations (`POST /api/v1/installs`) from one client address.
    let installsPerAddress: RateLimiter
    /// POS calls with one key.
    let posPerKey: RateLimiter

    init(
        authPerAddress: RateLimiter.Rate, authFailuresPerAccount: Int, mobilePerBusiness: RateLimiter.Rate,
        mobilePerUser: RateLimiter.Rate = .none, devicePerInstall: RateLimiter.Rate,
        installsPerAddress: RateLimiter.Rate = .none, posPerKey: RateLimiter.Rate
    ) {
        self.installsPerAddress = RateLimiter(installsPerAddress)
        self.authPerAddress = RateLimiter(authPerAddress)
        self.authPerAccount = LoginThrottle(freeFailures: authFailuresPerAccount)
        self.mobilePerBusiness = FairShareLimiter(mobilePerBusiness)
        self.mobilePerUser = RateLimiter(mobilePerUser)
        self.devicePerInstall = RateLimiter(devicePerInstall)
        self.posPerKey = RateLimiter(posPerKey)
    }

    /// No limits at all.
    static let unlimited = RateLimits(
        authPerAddress: .none, authFailuresPerAccount: 0, mobilePerBusiness: .none, devicePerInstall: .none,
        posPerKey: .none)

    /// A sign-up, login or password check from `address` on `account` (when known, for a password check): the
    /// address's bucket, and whether this address must still wait after failing on this account; or a 429.
    func checkAuth(address: String?, account: String?) throws {
        try authPerAddress.check("a:" + (address ?? "-"))
        if let account { try authPerAccount.check(account: account, address: address) }
    }

    /// What a password check on `account` from `address` came to: a failure counts towards its delay, a success
    /// clears them.
    func recordPasswordCheck(_ valid: Bool, address: String?, account: String) {
        if valid {
            authPerAccount.succeeded(account: account, address: address)
        } else {
            authPerAccount.failed(account: account, address: address)
        }
    }
}

/// A bound on concurrent password hashing: scrypt at its default cost takes tens of milliseconds of a core and
/// 16 MiB. The routes that hash are offloaded (`Router.add(…, offloaded: true)`), so they run on the HTTP server's
/// worker threads, as many as there are slots, while the HTTP threads serve everyone else; this bound stands behind
/// that: when every slot is busy anyway (a caller on another thread), a call is refused at once (429 with
/// `Retry-After`) rather than adding another hash.
final class PasswordPool: Sendable {
    private let slots: Int
    private let busy = Atomic<Int>(0)

    init(slots: Int) { self.slots = max(1, slots) }

    /// Runs `work` in a slot, or throws 429 when none is free.
    func run<T>(_ work: () throws -> T) throws -> T {
        let taken = busy.add(1, ordering: .acquiringAndReleasing).newValue
        defer { busy.subtract(1, ordering: .acquiringAndReleasing) }
        guard taken <= slots else { throw RateLimiter.tooManyRequests(retryAfter: 1) }
        return try work()
    }
}
