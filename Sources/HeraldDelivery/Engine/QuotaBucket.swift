import HeraldModel

/// A send quota as a token bucket: it paces to ``share`` of `perMinute` sends a minute, refilled continuously,
/// holding at most a tenth of a second's worth, so that a sender keeping to it stays under the provider's own count
/// (FCM's 600,000 messages a minute per project by default) even when the provider's clock and this one's disagree
/// by a little. Time is handed in.
///
/// ```swift
/// var bucket = QuotaBucket(perMinute: 600_000, at: now)
/// if let until = bucket.take(at: now) { /* nothing before `until` */ }
/// ```
struct QuotaBucket {
    /// The provider's quota: sends allowed a minute.
    let perMinute: Int
    private var tokens: Double
    private var filledAt: Timestamp

    /// The share of the quota sent: a provider counting over its own clock (late, or in its own steps) answers 429 to
    /// a sender keeping exactly to the quota (bench/RESULTS.md, issue 33: 445 of them at 100 %).
    static let share = 0.98
    /// The most sent at once, in seconds of the paced rate: a burst spends the provider's bucket, which then has no
    /// room for the next send that arrives a little early by its clock.
    static let burstSeconds = 0.1

    /// A full bucket at `now`.
    init(perMinute: Int, at now: Timestamp) {
        self.perMinute = max(1, perMinute)
        tokens = 0
        filledAt = now
        tokens = capacity
    }

    /// Sends a second at the paced rate.
    var perSecond: Double { Double(perMinute) * Self.share / 60 }

    /// The most the bucket holds: a tenth of a second's worth (at least one).
    var capacity: Double { max(1, perSecond * Self.burstSeconds) }

    /// Takes one send at `now`: nil when taken, else the time when the next one will be there.
    mutating func take(at now: Timestamp) -> Timestamp? {
        let elapsed = Double(now.milliseconds - filledAt.milliseconds) / 1000
        if elapsed > 0 {
            tokens = min(capacity, tokens + elapsed * perSecond)
            filledAt = now
        }
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let wait = (1 - tokens) / perSecond
        return now.adding(.milliseconds(max(1, Int64((wait * 1000).rounded(.up)))))
    }
}
