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
        // One query answers the three gauges of a scrape.
        let depth = RecentValue(lifetime: .milliseconds(200)) { try? queue.depth(at: clock.now()) }
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

/// A value worked out at most once per `lifetime`: what several readers asking at nearly the same moment share.
final class RecentValue<Value: Sendable>: Sendable {
    private let lifetime: Duration
    private let compute: @Sendable () -> Value
    private let latest = Mutex<(at: ContinuousClock.Instant, value: Value)?>(nil)

    init(lifetime: Duration, _ compute: @escaping @Sendable () -> Value) {
        self.lifetime = lifetime
        self.compute = compute
    }

    func get() -> Value {
        let now = ContinuousClock.now
        if let latest = latest.withLock({ $0 }), now - latest.at < lifetime { return latest.value }
        let value = compute()
        latest.withLock { $0 = (now, value) }
        return value
    }
}
