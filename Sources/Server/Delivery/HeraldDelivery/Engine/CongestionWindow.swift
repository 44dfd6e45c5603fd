import HeraldModel

/// How many pushes one credential may have in flight, driven by the provider's refusals, never by its latency.
///
/// A provider that sheds load (503, 500, 502, a 429 without `Retry-After`, streams reset or refused) answers the
/// pushes beyond what it can hold at once with a refusal each, and a refused push comes back as a retry: sent
/// again, it only adds to the load. So the window shrinks to ``decrease`` of what was in flight on a refusal, at most
/// once per round trip (a refusal of a push sent before the last shrink says nothing new), and grows again while answers
/// succeed: doubling each round trip until the provider first refuses (slow start), then ``growthPerRound`` pushes a
/// round (additive increase). Successes grow it whatever they took: slow answers alone shrink nothing.
///
/// ```swift
/// var window = CongestionWindow(range: 16...4096)
/// window.sent()                                    // while window.hasRoom
/// window.delivered()                               // grows
/// window.shed(sentAt: t0, at: t1)                   // shrinks (once a round trip)
/// ```
struct CongestionWindow {
    /// The floor and the ceiling (`--delivery-concurrency`).
    let range: ClosedRange<Int>
    /// The window, fractional: additive increase adds a fraction of a push per answer.
    private(set) var size: Double
    /// Pushes of this credential sent and not yet answered.
    private(set) var inFlight = 0
    /// Refusals for load since the start (for `/metrics`).
    private(set) var refusals = 0
    /// Until the provider first refuses, the window doubles each round trip.
    private(set) var slowStart = true
    /// Whether the window was at least half full at the last send: only a window in use is evidence that a wider
    /// one would be, so answers to a credential sending less than half its window grow nothing.
    private var inUse = false
    /// When the window last shrank: a refusal of a push sent then or before does not shrink it again.
    private(set) var shrunkAt: Timestamp?

    /// The share of the window kept on a refusal.
    static let decrease = 0.9
    /// Pushes the window grows by per round trip of successes, once out of slow start.
    static let growthPerRound = 8.0
    /// Where slow start begins (within the range).
    static let initial = 64

    /// A window within `range`, starting at `initial` (clamped): in slow start, or past it when `initial` is a limit a
    /// provider's refusal found before (`CredentialWindow.found`).
    init(range: ClosedRange<Int>, initial: Int = Self.initial, slowStart: Bool = true) {
        self.range = range
        size = Double(min(range.upperBound, max(range.lowerBound, initial)))
        self.slowStart = slowStart
    }

    /// The most pushes in flight now.
    var limit: Int { Int(size) }

    /// Whether another push may be sent now.
    var hasRoom: Bool { inFlight < limit }

    /// How many pushes it lets go within about a round trip from now: its room now, plus the places the answers of
    /// those in flight free as they come (twice over in slow start, where each success widens it by one more).
    var sendableWithinRoundTrip: Int {
        slowStart ? min(range.upperBound, limit + inFlight) : limit
    }

    /// A push was sent.
    mutating func sent() {
        inFlight += 1
        inUse = inFlight * 2 >= limit
    }

    /// A push was answered with neither a success nor a refusal for load (a retry with `Retry-After`, a dead token,
    /// a transport timeout): it leaves the window as it was.
    mutating func answered() { inFlight -= 1 }

    /// A push was accepted (or its token found dead: an answer all the same).
    mutating func delivered() {
        inFlight -= 1
        guard inUse else { return }
        size = min(Double(range.upperBound), size + (slowStart ? 1 : Self.growthPerRound / size))
    }

    /// A push sent at `sentAt` was refused for load at `now`: the window shrinks, unless it already did for a push
    /// sent since this one.
    mutating func shed(sentAt: Timestamp, at now: Timestamp) {
        inFlight -= 1
        refusals += 1
        if let shrunkAt, sentAt <= shrunkAt { return }
        shrunkAt = now
        slowStart = false
        size = max(Double(range.lowerBound), min(size, Double(inFlight + 1)) * Self.decrease)
    }
}
