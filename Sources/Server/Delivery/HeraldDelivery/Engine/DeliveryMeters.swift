import HeraldModel
import HeraldObservability
import HeraldDeliveryPorts
import Synchronization

/// The engine's series in `/metrics`: sends by outcome, answer latency, what is in flight, the window, the queue.
final class DeliveryMeters: Sendable {
    private let metrics: MetricsRegistry
    /// Counters by platform and outcome, with the one used last first: nearly every answer is the same one
    /// (`delivered`), and comparing two short strings costs less than hashing them.
    private let counters = Mutex<(last: (outcome: Outcome, counter: Counter)?, all: [Outcome: Counter])>((nil, [:]))
    /// Answer latency by platform: a list, as there are two at most.
    private let latencies = Mutex<[(platform: PushPlatform, histogram: Histogram)]>([])

    /// A counter's labels.
    private struct Outcome: Hashable {
        var platform: PushPlatform
        var label: String
    }

    /// The series over `queue` (and, once `observe` is called, the engine's).
    init(metrics: MetricsRegistry, queue: any DeliveryQueue, clock: WallClock) {
        self.metrics = metrics
        // One query answers the three gauges of a scrape. Counting a queue of a million takes ~0.1 s of CPU, so a
        // count is reused for 50 times what it took (at most 10 s): frequent scrapes spend ~2 % of a core on it.
        let depth = RecentValue(lifetime: .milliseconds(200), costShare: 50, atMost: .seconds(10)) {
            try? queue.depth(at: clock.now())
        }
        for (state, value) in [("queued", \QueueDepth.queued), ("due", \.due), ("sending", \.sending)] {
            metrics.sampledGauge(
                "herald_delivery_queue_depth", help: "Delivery jobs by state.", labels: ["state": state]
            ) {
                Double(depth.get().map { $0[keyPath: value] } ?? -1)
            }
        }
        metrics.sampledGauge(
            "herald_push_credentials_broken", help: "Push credentials the provider refused; their jobs wait."
        ) {
            Double((try? queue.brokenCredentials().count) ?? -1)
        }
    }

    /// The sends in flight and the window, as `engine` reads them from the state machine when `/metrics` is
    /// scraped. (A gauge moved on each send and answer read one past the window at times: an answer was counted
    /// off it just after its place had been refilled.)
    func observe(engine: @escaping @Sendable () -> (inFlight: Int, window: Int)) {
        metrics.sampledGauge("herald_delivery_window", help: "Most pushes the engine keeps in flight now.") {
            Double(engine().window)
        }
        metrics.sampledGauge("herald_delivery_in_flight", help: "Pushes sent and not yet answered.") {
            Double(engine().inFlight)
        }
    }

    /// One credential's series, read from the state machine by `read` when `/metrics` is scraped: its congestion
    /// window, what it has in flight, its refusals for load and its jobs waiting for room.
    func observe(
        credential key: DeliveryStateMachine.CredentialKey,
        read: @escaping @Sendable () -> DeliveryStateMachine.CredentialReading?
    ) {
        let labels = ["business": String(key.businessID), "provider": key.platform.rawValue]
        metrics.sampledGauge(
            "herald_delivery_credential_limit", help: "Most pushes of a credential in flight now (its window).",
            labels: labels
        ) { Double(read()?.limit ?? 0) }
        metrics.sampledGauge(
            "herald_delivery_credential_in_flight", help: "A credential's pushes sent and not yet answered.",
            labels: labels
        ) { Double(read()?.inFlight ?? 0) }
        metrics.sampledGauge(
            "herald_delivery_credential_waiting", help: "A credential's claimed pushes waiting for room in its window.",
            labels: labels
        ) { Double(read()?.waiting ?? 0) }
        metrics.sampledCounter(
            "herald_delivery_credential_refusals_total",
            help: "A credential's pushes refused for load (503, 500, 502, 429 without Retry-After, resets).",
            labels: labels
        ) { Double(read()?.refusals ?? 0) }
    }

    /// A push was answered.
    func answered(_ platform: PushPlatform, _ label: String, roundTrip: Duration?) {
        count(platform, label)
        if let roundTrip { latency(platform).observe(roundTrip) }
    }

    /// An attempt's outcome, sent or settled without a send.
    func count(_ platform: PushPlatform, _ outcome: String) {
        let key = Outcome(platform: platform, label: outcome)
        let known = counters.withLock { counters -> Counter? in
            if let last = counters.last, last.outcome == key { return last.counter }
            guard let counter = counters.all[key] else { return nil }
            counters.last = (key, counter)
            return counter
        }
        if let known { return known.increment() }
        let counter = metrics.counter(
            "herald_push_sends_total", help: "Delivery attempts by provider and outcome.",
            labels: ["provider": platform.rawValue, "outcome": outcome])
        counters.withLock { $0.all[key] = counter }
        counter.increment()
    }

    private func latency(_ platform: PushPlatform) -> Histogram {
        if let known = latencies.withLock({ $0.first { $0.platform == platform }?.histogram }) { return known }
        let histogram = metrics.histogram(
            "herald_push_send_duration_seconds", help: "Time from handing a push to its provider to its answer.",
            labels: ["provider": platform.rawValue])
        latencies.withLock { latencies in
            if !latencies.contains(where: { $0.platform == platform }) { latencies.append((platform, histogram)) }
        }
        return histogram
    }
}

/// A value worked out at most once per `lifetime`, or once per `costShare` times what working it out took if that
/// is longer (up to `maximum`): what several readers asking at nearly the same moment share, and a bound on what
/// computing it costs however often it is asked for.
final class RecentValue<Value: Sendable>: Sendable {
    private let lifetime: Duration
    private let costShare: Int
    private let maximum: Duration
    private let compute: @Sendable () -> Value
    private let latest = Mutex<(until: ContinuousClock.Instant, value: Value)?>(nil)

    init(
        lifetime: Duration, costShare: Int = 0, atMost maximum: Duration = .seconds(10),
        _ compute: @escaping @Sendable () -> Value
    ) {
        self.lifetime = lifetime
        self.costShare = costShare
        self.maximum = max(lifetime, maximum)
        self.compute = compute
    }

    func get() -> Value {
        let started = ContinuousClock.now
        if let latest = latest.withLock({ $0 }), started < latest.until { return latest.value }
        let value = compute()
        let cost = ContinuousClock.now - started
        latest.withLock { $0 = (started + min(maximum, max(lifetime, cost * costShare)), value) }
        return value
    }
}
