import HeraldDeliveryPorts
import HeraldModel

/// The part of a credential's send quota this node holds (FCM's, per Firebase project): stretches of the project's
/// time leased from the `QuotaLedger`, which no other node spends, each spent one send per slot at ``share`` of the
/// quota's pace. Slots left unused for more than ``burst`` are dropped, not spent late all at once: the provider's own
/// count would see a burst. Time is handed in.
///
/// ```swift
/// var allowance = QuotaAllowance()
/// if allowance.wantsLease(at: now) { allowance.askedForLease() }  // then allowance.granted(grant)
/// switch allowance.take(at: now) { case .taken: send; case .wait(let until): hold until then; case .empty: hold }
/// ```
struct QuotaAllowance {
    /// What `take` found.
    enum Take: Equatable {
        /// A slot was spent: send now.
        case taken
        /// The next slot comes at this time.
        case wait(until: Timestamp)
        /// Nothing leased is left: wait for the next lease.
        case empty
    }

    /// A leased stretch: its next slot (milliseconds, fractional), the time between slots, the slots left.
    private struct Stretch {
        var next: Double
        var interval: Double
        var left: Int
    }

    /// The share of the quota sent: a provider counting on its own clock (late, or in its own steps) answers 429 to a
    /// sender keeping exactly to the quota (bench/RESULTS.md, issue 33: 445 of them at 100 %, none at 98 %).
    static let share = 0.98
    /// How late a slot may still be spent, in milliseconds: the most sent at once after a pause of the engine.
    static let burst = 100.0
    /// How much of the project's time is leased at a time (longer at a quota of less than a few sends a second).
    static let leaseLength: Duration = .seconds(1)

    private var stretches: [Stretch] = []
    /// A lease was asked for and is not answered yet.
    private var leasing = false
    /// The ledger failed: not asked again before this time.
    private var retryAt: Timestamp?
    /// The slots of the last lease, against which "running low" is measured, and the quota it was spent at.
    private var lastSlots = 0
    private var perMinute: Int?

    /// Spends the slot due at `now`, if any.
    mutating func take(at now: Timestamp) -> Take {
        let now = Double(now.milliseconds)
        while var stretch = stretches.first {
            let late = now - Self.burst - stretch.next
            if late > 0 {
                let dropped = min(stretch.left, Int((late / stretch.interval).rounded(.up)))
                stretch.next += Double(dropped) * stretch.interval
                stretch.left -= dropped
            }
            guard stretch.left > 0 else {
                stretches.removeFirst()
                continue
            }
            guard stretch.next <= now else {
                stretches[0] = stretch
                return .wait(until: Timestamp(milliseconds: Int64(stretch.next.rounded(.up))))
            }
            stretch.next += stretch.interval
            stretch.left -= 1
            if stretch.left == 0 { stretches.removeFirst() } else { stretches[0] = stretch }
            return .taken
        }
        return .empty
    }

    /// Whether to lease the next stretch at `now`: no lease is being asked for, and less than half of the last one is
    /// left.
    func wantsLease(at now: Timestamp) -> Bool {
        guard !leasing, retryAt.map({ now >= $0 }) ?? true else { return false }
        return stretches.reduce(0) { $0 + $1.left } * 2 < max(1, lastSlots)
    }

    /// How long a lease to ask for, the quota being `defaultPerMinute` unless a lease said otherwise: a second, or
    /// four slots when they are further apart.
    func leaseDuration(defaultPerMinute: Int) -> Duration {
        max(Self.leaseLength, .milliseconds(Int64((4 * Self.interval(perMinute ?? defaultPerMinute)).rounded(.up))))
    }

    /// How many slots come within `duration` at the pace of the last lease (`defaultPerMinute`'s before one): what
    /// the quota lets go soon.
    func slots(within duration: Duration, defaultPerMinute: Int) -> Int {
        Int(duration / .milliseconds(1) / Self.interval(perMinute ?? defaultPerMinute)) + 1
    }

    /// A lease was asked for.
    mutating func askedForLease() { leasing = true }

    /// The ledger granted `grant`: its slots follow those already held.
    mutating func granted(_ grant: QuotaGrant) {
        leasing = false
        retryAt = nil
        perMinute = grant.perMinute
        let interval = Self.interval(grant.perMinute)
        lastSlots = Int((Double(grant.end.milliseconds - grant.start.milliseconds) / interval).rounded(.down))
        guard lastSlots > 0 else { return }
        stretches.append(Stretch(next: Double(grant.start.milliseconds), interval: interval, left: lastSlots))
    }

    /// The ledger could not be asked: ask again at `retryAt`.
    mutating func leaseFailed(retryAt: Timestamp) {
        leasing = false
        self.retryAt = retryAt
    }

    /// Milliseconds between two sends at `share` of `perMinute`.
    private static func interval(_ perMinute: Int) -> Double { 60_000 / (Double(max(1, perMinute)) * share) }
}
