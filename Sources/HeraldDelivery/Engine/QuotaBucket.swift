import HeraldModel

/// A send quota as a token bucket: `perMinute` sends a minute, refilled continuously, holding at most a second's
/// worth, so that a sender keeping to it never bursts past the provider's own count (FCM's 600,000 messages a minute
/// per project by default). Time is handed in.
///
/// ```swift
/// var bucket = QuotaBucket(perMinute: 600_000, at: now)
/// if let until = bucket.take(at: now) { /* nothing before `until` */ }
/// ```
struct QuotaBucket {
    /// Sends allowed a minute.
    let perMinute: Int
    private var tokens: Double
    private var filledAt: Timestamp

    /// A full bucket at `now`.
    init(perMinute: Int, at now: Timestamp) {
        self.perMinute = max(1, perMinute)
        tokens = Double(self.perMinute) / 60
        filledAt = now
    }

    /// The most the bucket holds: a second's worth (at least one).
    var capacity: Double { max(1, Double(perMinute) / 60) }

    /// Takes one send at `now`: nil when taken, else the time when the next one will be there.
    mutating func take(at now: Timestamp) -> Timestamp? {
        let elapsed = Double(now.milliseconds - filledAt.milliseconds) / 1000
        if elapsed > 0 {
            tokens = min(capacity, tokens + elapsed * Double(perMinute) / 60)
            filledAt = now
        }
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let wait = (1 - tokens) * 60 / Double(perMinute)
        return now.adding(.milliseconds(max(1, Int64((wait * 1000).rounded(.up)))))
    }
}
