/// When to try a failed send again: exponential backoff with jitter, capped, honouring `Retry-After`.
package struct RetryPolicy: Sendable {
    /// Attempts before a retryable failure becomes final.
    package var maxAttempts: Int
    /// The delay after the first failure.
    package var base: Duration
    /// The longest delay.
    package var cap: Duration
    /// The delay after a refusal for load (`PushResult.shed`) of a push's second attempt, doubling from there like
    /// `base`: shorter, because what protects the provider from refused pushes coming back is the credential's
    /// congestion window, which has shrunk, not each push's backoff; a long one only leaves the refused pushes idle
    /// after the rest. A refusal of the first attempt is due again at once: the engine sends it only when its
    /// credential's window has room.
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

    /// The delay before attempt `attempt + 1` of a push refused for load, or nil when `attempt` was the last: none
    /// after the first attempt (the window that just shrank, not a backoff, spaces it: at the end of a send the last
    /// refused pushes would otherwise wait out their backoff while the window stands empty), then `delay`'s backoff
    /// from `shedBase`, as from the first.
    package func delayAfterShed(afterAttempt attempt: Int, random: Double) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        guard attempt > 1 else { return .zero }
        return backoff(afterAttempt: attempt - 1, from: shedBase, random: random)
    }

    private func backoff(afterAttempt attempt: Int, from base: Duration, random: Double) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(max(attempt - 1, 0), 30)
        let window = min(base * (1 << exponent), cap)
        return window * 0.5 + window * (0.5 * min(max(random, 0), 1))
    }
}
