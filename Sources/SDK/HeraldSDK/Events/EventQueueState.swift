import HeraldModel

/// The event queue's rules, without I/O: what is kept, what goes in the next batch, and what a send's outcome
/// does. `EventQueue` persists it and sends.
///
/// - at most `maximumEvents` events; past it the oldest are dropped;
/// - events older than `maximumAge` (by `occurred_at`) are dropped unsent;
/// - a batch is the oldest `batchSize` events; nothing is sent before `retryAt`;
/// - a 2xx deletes the batch (events the server rejected are reported and deleted too: sending them again can't
///   help);
/// - a 5xx, 429, 408 or no answer keeps it and sets `retryAt` to now + the delay: `base × 2^(failures − 1)`, at
///   most `maximumDelay`, with jitter (a random point in the delay's upper half), or the server's `Retry-After`
///   when longer;
/// - any other 4xx drops the batch with a diagnostic.
struct EventQueueState: Sendable, Equatable {
    /// The events waiting, oldest first.
    private(set) var events: [DeviceEvent] = []
    /// Failed sends in a row.
    private(set) var failures = 0
    /// Nothing is sent before this.
    private(set) var retryAt: Timestamp?

    var maximumEvents = 1000
    var maximumAge: Duration = .seconds(72 * 3600)
    var batchSize = 100
    var baseDelay: Duration = .seconds(2)
    var maximumDelay: Duration = .seconds(600)

    /// How a batch's send ended.
    enum Outcome: Sendable, Equatable {
        /// A 2xx; `rejected` lists the events the server refused, with its errors.
        case accepted(rejected: [(id: String, errors: String)])
        /// Worth trying again later: 5xx, 429, 408, offline; `retryAfter` when the server said.
        case retryable(retryAfter: Duration?)
        /// A 4xx that sending again won't change.
        case refused(status: Int)

        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            switch (lhs, rhs) {
            case (.accepted(let a), .accepted(let b)): return a.map(\.id) == b.map(\.id)
            case (.retryable(let a), .retryable(let b)): return a == b
            case (.refused(let a), .refused(let b)): return a == b
            default: return false
            }
        }
    }

    /// Adds `event`; answers the diagnostics of events dropped to make room.
    mutating func append(_ event: DeviceEvent) -> [HeraldDiagnostic] {
        events.append(event)
        guard events.count > maximumEvents else { return [] }
        let dropped = events.prefix(events.count - maximumEvents)
        events.removeFirst(dropped.count)
        return dropped.map {
            HeraldDiagnostic(
                code: .eventDropped, message: "\($0.type) \($0.id): the queue holds at most \(maximumEvents) events")
        }
    }

    /// Drops events older than `maximumAge`; answers their diagnostics.
    mutating func dropExpired(now: Timestamp) -> [HeraldDiagnostic] {
        let oldest = now.adding(.zero - maximumAge)
        let expired = events.filter { $0.occurredAt < oldest }
        guard !expired.isEmpty else { return [] }
        events.removeAll { $0.occurredAt < oldest }
        return expired.map {
            HeraldDiagnostic(code: .eventDropped, message: "\($0.type) \($0.id): older than the queue keeps events")
        }
    }

    /// The next batch to send now, or nil (empty, or waiting for `retryAt`).
    func nextBatch(now: Timestamp) -> [DeviceEvent]? {
        guard !events.isEmpty else { return nil }
        if let retryAt, now < retryAt { return nil }
        return Array(events.prefix(batchSize))
    }

    /// Applies a send's outcome for the batch with `ids`; answers diagnostics.
    mutating func complete(
        _ ids: [String], outcome: Outcome, now: Timestamp, random: RandomSource
    ) -> [HeraldDiagnostic] {
        switch outcome {
        case .accepted(let rejected):
            remove(ids)
            failures = 0
            retryAt = nil
            return rejected.map {
                HeraldDiagnostic(code: .eventDropped, message: "event \($0.id) rejected by the server: \($0.errors)")
            }
        case .retryable(let retryAfter):
            failures += 1
            var delay = Self.backoff(failures: failures, base: baseDelay, maximum: maximumDelay, random: random)
            if let retryAfter, retryAfter > delay { delay = min(retryAfter, maximumDelay * 6) }
            retryAt = now.adding(delay)
            return []
        case .refused(let status):
            remove(ids)
            return [
                HeraldDiagnostic(
                    code: .eventDropped, message: "\(ids.count) events dropped: POST /api/v1/events answered \(status)")
            ]
        }
    }

    /// Removes everything (deleteMyData).
    mutating func clear() {
        events = []
        failures = 0
        retryAt = nil
    }

    /// Lets the next batch go now (the app came to the front, the network came back).
    mutating func retryNow() { retryAt = nil }

    private mutating func remove(_ ids: [String]) {
        let sent = Set(ids)
        events.removeAll { sent.contains($0.id) }
    }

    /// The delay after `failures` failures: `base × 2^(failures − 1)` capped at `maximum`, then a random point in
    /// its upper half.
    static func backoff(failures: Int, base: Duration, maximum: Duration, random: RandomSource) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let millis = min(Double(base.milliseconds) * Double(1 << exponent), Double(maximum.milliseconds))
        let jittered = millis / 2 + random.fraction() * millis / 2
        return .milliseconds(Int64(jittered.rounded()))
    }

    // MARK: - Persistence

    var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("events", .array(events.map(\.json))), ("failures", .int(Int64(failures))),
        ]
        if let retryAt { pairs.append(("retry_at", .int(retryAt.milliseconds))) }
        return .object(pairs)
    }

    /// Restores saved events (unreadable ones skipped).
    mutating func restore(from json: JSON) {
        events = (json["events"]?.arrayValue ?? []).compactMap(DeviceEvent.init(json:)) + events
        failures = Int(json["failures"]?.int64Value ?? 0)
        retryAt = json["retry_at"]?.int64Value.map(Timestamp.init(milliseconds:))
        if events.count > maximumEvents { events.removeFirst(events.count - maximumEvents) }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
