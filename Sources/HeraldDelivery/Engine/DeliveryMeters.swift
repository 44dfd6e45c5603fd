import HeraldModel
import HeraldObservability
import HeraldStore
import Synchronization

/// The engine's series in `/metrics`: sends by outcome, answer latency, what is in flight, the window, the queue.
final class DeliveryMeters: Sendable {
    private let metrics: MetricsRegistry
    private let inFlight: Gauge
    private let window: Gauge
    private let counters = Mutex<[String: Counter]>([:])
    private let latencies = Mutex<[String: Histogram]>([:])

    init(metrics: MetricsRegistry, queue: any DeliveryQueue, clock: WallClock, window initialWindow: Int) {
        self.metrics = metrics
        window = metrics.gauge(
            "herald_delivery_window", help: "Most pushes the engine keeps in flight now.")
        window.set(Double(initialWindow))
        inFlight = metrics.gauge("herald_delivery_in_flight", help: "Pushes sent and not yet answered.")
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

    /// A push went out.
    func sent() { inFlight.add(1) }

    /// A push was answered.
    func answered(_ platform: PushPlatform, _ label: String, roundTrip: Duration?, window limit: Int) {
        count(platform, label)
        if let roundTrip { latency(platform).observe(roundTrip) }
        inFlight.add(-1)
        window.set(Double(limit))
    }

    /// An attempt's outcome, sent or settled without a send.
    func count(_ platform: PushPlatform, _ outcome: String) {
        let key = platform.rawValue + "/" + outcome
        if let counter = counters.withLock({ $0[key] }) { return counter.increment() }
        let counter = metrics.counter(
            "herald_push_sends_total", help: "Delivery attempts by provider and outcome.",
            labels: ["provider": platform.rawValue, "outcome": outcome])
        counters.withLock { $0[key] = counter }
        counter.increment()
    }

    private func latency(_ platform: PushPlatform) -> Histogram {
        if let histogram = latencies.withLock({ $0[platform.rawValue] }) { return histogram }
        let histogram = metrics.histogram(
            "herald_push_send_duration_seconds", help: "Time from handing a push to its provider to its answer.",
            labels: ["provider": platform.rawValue])
        latencies.withLock { $0[platform.rawValue] = histogram }
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
