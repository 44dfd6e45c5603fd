/// How many pushes a node keeps in flight, found by watching how long they take.
///
/// A window wider than the path needs buys no throughput: the extra pushes only wait in a queue — ours, the
/// connection's or the provider's — and each push sent but not yet answered when the process dies is sent
/// again after the restart (Apple and Google do not de-duplicate). So the window widens while round trips stay
/// within `tolerance` of the fastest seen and narrows in proportion when they grow beyond it, the sign of a
/// queue (the gradient rule of Netflix's concurrency-limits). Against a distant provider the fastest round trip
/// is long and jitter small beside it, so the window opens wide; against a near one that is merely slow it
/// stays narrow.
struct ConcurrencyLimit {
    /// The bounds of the window.
    let range: ClosedRange<Int>
    /// The current window.
    private(set) var limit: Int

    /// How much longer than the fastest a round trip may grow before the window narrows.
    static let tolerance = 2.0
    /// Rounds after which the fastest round trip is measured afresh (one round at the narrowest window), so that
    /// a path that really got longer is accepted as the new normal and a queue that built up is not.
    static let baselineLifetime = 100

    /// The fastest round's mean round trip, in seconds.
    private var baseline: Double?
    private var roundsSinceBaseline = 0
    /// The window to go back to once a probe round has measured the baseline.
    private var probing: Int?
    private var roundSum = 0.0
    private var roundCount = 0
    private var roundPeakInFlight = 0

    /// Whether this round measures the baseline at the narrowest window.
    var isProbing: Bool { probing != nil }

    init(range: ClosedRange<Int>, initial: Int) {
        self.range = range
        limit = range.clamp(initial)
    }

    /// Takes one answered send: `seconds` from handing it to the provider to its answer, with `inFlight` sends
    /// outstanding when it was handed over. The window moves once per round (as many answers as the window).
    mutating func record(seconds: Double, inFlight: Int) {
        // A probe measures only what was sent within the narrow window.
        if probing != nil && inFlight > limit { return }
        roundSum += seconds
        roundCount += 1
        roundPeakInFlight = max(roundPeakInFlight, inFlight)
        guard roundCount >= max(limit, 16) else { return }
        let mean = roundSum / Double(roundCount)
        let used = roundPeakInFlight
        (roundSum, roundCount, roundPeakInFlight) = (0, 0, 0)

        if let resume = probing {
            (baseline, roundsSinceBaseline, probing, limit) = (mean, 0, nil, resume)
            return
        }
        roundsSinceBaseline += 1
        if roundsSinceBaseline >= Self.baselineLifetime && limit > range.lowerBound {
            (probing, limit) = (limit, range.lowerBound)
            return
        }
        // At the narrowest window every round is a probe.
        let measuredNarrow = roundsSinceBaseline >= Self.baselineLifetime
        if baseline == nil || mean < baseline! || measuredNarrow { (baseline, roundsSinceBaseline) = (mean, 0) }
        let size = Double(limit)
        let gradient = min(1, max(0.5, Self.tolerance * baseline! / mean))
        // At rest, a window of L holds about √L pushes queued beyond the tolerance.
        let target = Int((size * gradient + size.squareRoot()).rounded())
        // Only a window in use is evidence that a wider one would be.
        if target < limit || used * 2 >= limit { limit = range.clamp(target) }
    }
}

extension ClosedRange<Int> {
    fileprivate func clamp(_ value: Int) -> Int { Swift.min(upperBound, Swift.max(lowerBound, value)) }
}
