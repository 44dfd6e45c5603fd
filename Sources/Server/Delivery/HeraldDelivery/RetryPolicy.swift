/// When to try a failed send again: exponential backoff with jitter, capped, honouring `Retry-After`.
package struct RetryPolicy: Sendable {
    /// Attempts before a retryable failure becomes final.
    package var maxAttempts: Int
    /// The delay after the first failure.
    package var base: Duration
    /// The longest delay.
    package var cap: Duration
    /// The delay after the first refusal for load (`PushResult.shed`), doubling from there like `base`: shorter,
    /// because what protects the provider from refused pushes coming back is the credential's congestion window,
    /// which has shrunk, not each push's backoff; a long one only leaves the refused pushes idle after the rest.
    package var shedBase: Duration

    /// A policy.
    package init(
        maxAttempts: Int = 8, base: Duration = .seconds(2), cap: Duration = .seconds(600),
        shedBase: Duration = .milliseconds(250)
    ) {
        self.maxAttempts = maxAttempts
        self.base = base
        self.cap = cap
        self.shedBase = shedBase
    }

    /// The delay before attempt `attempt + 1`, or nil when `attempt` was the last.
    /// `retryAfter` (the service's own word) wins over the computed delay when longer.
    /// `random` is in 0..<1; the delay is drawn from the upper half of the backoff window ("equal jitter").
    package func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double) -> Duration? {
        guard let jittered = backoff(afterAttempt: attempt, from: base, random: random) else { return nil }
        if let retryAfter, retryAfter > jittered { return min(retryAfter, .seconds(3600)) }
        return jittered
    }

    /// The delay before attempt `attempt + 1` of a push refused for load, or nil when `attempt` was the last:
    /// `delay`'s backoff from `shedBase`.
    package func delayAfterShed(afterAttempt attempt: Int, random: Double) -> Duration? {
        backoff(afterAttempt: attempt, from: shedBase, random: random)
    }

    private func backoff(afterAttempt attempt: Int, from base: Duration, random: Double) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(max(attempt - 1, 0), 30)
        let window = min(base * (1 << exponent), cap)
        return window * 0.5 + window * (0.5 * min(max(random, 0), 1))
    }
}
