import Synchronization

/// Counters, gauges and histograms, rendered in the Prometheus text format for `/metrics`.
///
/// ```swift
/// let metrics = MetricsRegistry()
/// let sent = metrics.counter("herald_pushes_total", help: "Pushes sent", labels: ["provider": "apns", "outcome": "delivered"])
/// sent.increment()
/// print(metrics.render())
/// ```
/// Asking twice for the same name and labels returns the same metric.
package final class MetricsRegistry: Sendable {
    private struct Family {
        var help: String
        var type: String
        var series: [String: AnyMetric] = [:]  // keyed by rendered label set
    }

    private enum AnyMetric {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)
        case sampled(@Sendable () -> Double)
    }

    private let families = Mutex<[String: Family]>([:])

    /// An empty registry.
    package init() {}

    /// The counter `name` with `labels`, created on first use.
    package func counter(_ name: String, help: String, labels: [String: String] = [:]) -> Counter {
        metric(name, help: help, type: "counter", labels: labels, make: { .counter(Counter()) }) {
            if case .counter(let c) = $0 { return c }
            return nil
        }
    }

    /// The gauge `name` with `labels`, created on first use.
    package func gauge(_ name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        metric(name, help: help, type: "gauge", labels: labels, make: { .gauge(Gauge()) }) {
            if case .gauge(let g) = $0 { return g }
            return nil
        }
    }

    /// The histogram `name` with `labels`, created on first use with `buckets` (upper bounds, ascending).
    package func histogram(
        _ name: String, help: String, labels: [String: String] = [:], buckets: [Double] = Histogram.latencyBuckets
    ) -> Histogram {
        metric(name, help: help, type: "histogram", labels: labels, make: { .histogram(Histogram(buckets: buckets)) }) {
            if case .histogram(let h) = $0 { return h }
            return nil
        }
    }

    /// A gauge whose value is read by `sample` at every scrape (queue depth, say). Replaces an earlier one.
    package func sampledGauge(
        _ name: String, help: String, labels: [String: String] = [:], sample: @escaping @Sendable () -> Double
    ) {
        sampled(name, type: "gauge", help: help, labels: labels, sample)
    }

    /// A counter whose value is read by `sample` at every scrape (CPU seconds, say). Replaces an earlier one.
    package func sampledCounter(
        _ name: String, help: String, labels: [String: String] = [:], sample: @escaping @Sendable () -> Double
    ) {
        sampled(name, type: "counter", help: help, labels: labels, sample)
    }

    private func sampled(
        _ name: String, type: String, help: String, labels: [String: String],
        _ sample: @escaping @Sendable () -> Double
    ) {
        let key = Self.renderLabels(labels)
        families.withLock { families in
            var family = families[name] ?? Family(help: help, type: type)
            family.series[key] = .sampled(sample)
            families[name] = family
        }
    }

    private func metric<M>(
        _ name: String, help: String, type: String, labels: [String: String], make: () -> AnyMetric,
        extract: (AnyMetric) -> M?
    ) -> M {
        let key = Self.renderLabels(labels)
        return families.withLock { families in
            var family = families[name] ?? Family(help: help, type: type)
            if let existing = family.series[key], let metric = extract(existing) { return metric }
            let created = make()
            family.series[key] = created
            families[name] = family
            return extract(created)!
        }
    }

    /// The Prometheus text exposition (version 0.0.4) of every metric.
    package func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for labels in family.series.keys.sorted() {
                switch family.series[labels]! {
                case .counter(let c): out += "\(name)\(labels) \(c.value)\n"
                case .gauge(let g): out += "\(name)\(labels) \(Self.format(g.value))\n"
                case .sampled(let sample): out += "\(name)\(labels) \(Self.format(sample()))\n"
                case .histogram(let h): out += h.render(name: name, labels: labels)
                }
            }
        }
        return out
    }

    static func renderLabels(_ labels: [String: String]) -> String {
        let pairs = labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        guard !pairs.isEmpty else { return "" }
        return "{" + pairs.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// A monotonically increasing count.
package final class Counter: Sendable {
    private let storage = Atomic<Int64>(0)

    /// A counter at zero.
    package init() {}

    /// Adds `amount` (default 1).
    package func increment(by amount: Int64 = 1) { storage.add(amount, ordering: .relaxed) }

    /// The current count.
    package var value: Int64 { storage.load(ordering: .relaxed) }
}

/// A value that goes up and down.
package final class Gauge: Sendable {
    private let storage = Mutex<Double>(0)

    /// A gauge at zero.
    package init() {}

    /// Sets the value.
    package func set(_ value: Double) { storage.withLock { $0 = value } }

    /// Adds `delta` (negative to decrease).
    package func add(_ delta: Double) { storage.withLock { $0 += delta } }

    /// The current value.
    package var value: Double { storage.withLock { $0 } }
}

/// Counts observations into buckets, as Prometheus histograms do.
package final class Histogram: Sendable {
    /// Seconds, from 100 µs to 10 s: request and send latencies.
    package static let latencyBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private struct State {
        var counts: [Int64]
        var sum: Double = 0
        var count: Int64 = 0
    }

    /// Upper bounds of the buckets, ascending.
    package let buckets: [Double]
    private let state: Mutex<State>

    /// A histogram with `buckets` upper bounds.
    package init(buckets: [Double]) {
        self.buckets = buckets
        state = Mutex(State(counts: Array(repeating: 0, count: buckets.count)))
    }

    /// Records one observation.
    package func observe(_ value: Double) {
        let index = buckets.firstIndex { value <= $0 }
        state.withLock { state in
            if let index { state.counts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    /// Records a duration in seconds.
    package func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Number of observations so far.
    package var count: Int64 { state.withLock { $0.count } }

    func render(name: String, labels: String) -> String {
        let snapshot = state.withLock { $0 }
        let baseLabels = labels.isEmpty ? "" : String(labels.dropFirst().dropLast())
        func withLE(_ le: String) -> String {
            "{" + (baseLabels.isEmpty ? "" : baseLabels + ",") + "le=\"\(le)\"}"
        }
        var out = ""
        var cumulative: Int64 = 0
        for (index, bound) in buckets.enumerated() {
            cumulative += snapshot.counts[index]
            out += "\(name)_bucket\(withLE(MetricsRegistry.format(bound))) \(cumulative)\n"
        }
        out += "\(name)_bucket\(withLE("+Inf")) \(snapshot.count)\n"
        out += "\(name)_sum\(labels) \(MetricsRegistry.format(snapshot.sum))\n"
        out += "\(name)_count\(labels) \(snapshot.count)\n"
        return out
    }
}
