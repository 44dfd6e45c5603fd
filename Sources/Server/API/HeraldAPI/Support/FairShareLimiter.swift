import Synchronization

/// A budget many clients share — a business's mobile calls before signing in, made by every copy of its app with
/// the same public secret — split so that no client takes more than its share: a token bucket for the whole group
/// (`rate`), and one for each client address in it, whose rate and burst are the group's divided by one more than
/// the number of addresses active in it (at least one call's worth). One address flooding alone gets half the group's
/// budget, beside one other address a third, and so on; what it sends beyond its share is refused without spending
/// the group's, and the share left over is there for the next address to come. An address is active until its
/// bucket has filled up again (tidied once a second).
///
/// In this process's memory, like `RateLimiter`: per node.
///
/// ```swift
/// let limiter = FairShareLimiter(.perSecond(2000))
/// try limiter.check(group: business.clientID, member: request.remoteAddress ?? "-")   // 429 past its share
/// ```
final class FairShareLimiter: Sendable {
    private struct Group {
        var bucket: TokenBucket
        var members: [String: TokenBucket] = [:]
        var tidied: Double
    }

    /// The whole group's budget (0 calls: no limit).
    let rate: RateLimiter.Rate
    private let now: @Sendable () -> Double
    private let groups = Mutex<[String: Group]>([:])

    init(_ rate: RateLimiter.Rate, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.rate = rate
        self.now = now
    }

    /// The rate of one member's share when `active` members (counting it) are active.
    func share(active: Int) -> RateLimiter.Rate {
        let parts = Double(active + 1)
        return RateLimiter.Rate(burst: max(1, rate.burst / parts), perSecond: rate.perSecond / parts)
    }

    /// Takes a token for `member` of `group`, from its share and from the group's: nil when there was one, else the
    /// whole seconds until there is.
    func take(group key: String, member: String) -> Int? {
        guard rate.perSecond > 0 else { return nil }
        let time = now()
        return groups.withLock { groups in
            var group = groups[key] ?? Group(bucket: TokenBucket(full: rate, at: time), tidied: time)
            defer { groups[key] = group }
            group.bucket.refill(rate, at: time)
            if time - group.tidied >= 1 {
                let idle = share(active: group.members.count)
                group.members = group.members.filter { !$0.value.isFull(idle, at: time) }
                group.tidied = time
            }
            let share = share(active: group.members.count + (group.members[member] == nil ? 1 : 0))
            var own = group.members[member] ?? TokenBucket(full: share, at: time)
            own.refill(share, at: time)
            defer { group.members[member] = own }
            if let wait = own.wait(share) { return wait }
            if let wait = group.bucket.wait(rate) { return wait }
            own.tokens -= 1
            group.bucket.tokens -= 1
            return nil
        }
    }

    /// Takes a token for `member` of `group` or throws the 429 that says when to retry.
    func check(group: String, member: String) throws {
        if let retryAfter = take(group: group, member: member) {
            throw RateLimiter.tooManyRequests(retryAfter: retryAfter)
        }
    }
}
