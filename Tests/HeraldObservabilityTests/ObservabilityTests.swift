import HeraldObservability
import Synchronization
import Testing

@Suite("Metrics")
struct MetricsTests {
    @Test("counters, gauges and sampled gauges render in the Prometheus text format, label sets sorted")
    func seriesRender() {
        let metrics = MetricsRegistry()
        metrics.counter("herald_pushes_total", help: "Pushes.", labels: ["provider": "apns", "outcome": "delivered"])
            .increment(by: 3)
        metrics.counter("herald_pushes_total", help: "Pushes.", labels: ["outcome": "delivered", "provider": "apns"])
            .increment()
        metrics.gauge("herald_window", help: "Window.").set(42.5)
        metrics.sampledGauge("herald_depth", help: "Depth.", labels: ["state": "queued"]) { 7 }
        #expect(
            metrics.render() == """
                # HELP herald_depth Depth.
                # TYPE herald_depth gauge
                herald_depth{state="queued"} 7
                # HELP herald_pushes_total Pushes.
                # TYPE herald_pushes_total counter
                herald_pushes_total{outcome="delivered",provider="apns"} 4
                # HELP herald_window Window.
                # TYPE herald_window gauge
                herald_window 42.5

                """)
    }

    @Test("a histogram's buckets are cumulative, with +Inf, _sum and _count")
    func histogramRenders() {
        let metrics = MetricsRegistry()
        let histogram = metrics.histogram("herald_latency_seconds", help: "Latency.", buckets: [0.1, 1])
        for value in [0.05, 0.5, 0.7, 3] { histogram.observe(value) }
        #expect(histogram.count == 4)
        let text = metrics.render()
        #expect(text.contains("herald_latency_seconds_bucket{le=\"0.1\"} 1\n"))
        #expect(text.contains("herald_latency_seconds_bucket{le=\"1\"} 3\n"))
        #expect(text.contains("herald_latency_seconds_bucket{le=\"+Inf\"} 4\n"))
        #expect(text.contains("herald_latency_seconds_sum 4.25\n"))
        #expect(text.contains("herald_latency_seconds_count 4\n"))
    }

    @Test("label values are escaped: a route with quotes or a newline cannot break the exposition")
    func labelValuesAreEscaped() {
        let metrics = MetricsRegistry()
        metrics.counter("herald_requests_total", help: "Requests.", labels: ["route": "/a\"b\\c\nd"]).increment()
        #expect(metrics.render().contains(#"herald_requests_total{route="/a\"b\\c\nd"} 1"#))
    }
}

@Suite("Logger")
struct LoggerTests {
    @Test("one logfmt line per event, metadata sorted and quoted where needed, events below the level dropped")
    func linesAndLevels() {
        let lines = Lines()
        let logger = Logger(label: "herald.test", level: .info, metadata: ["node": "n1"], sink: lines.sink)
        logger.debug("dropped")
        logger.info("delivered", ["delivery.id": "42", "reason": "410 Unregistered", "quote": "say \"hi\"\n"])
        let written = lines.all
        #expect(written.count == 1)
        let line = written.first ?? ""
        #expect(line.hasSuffix("\n"))
        #expect(
            line.contains(
                #" info herald.test: delivered delivery.id=42 node=n1 quote="say \"hi\"\n" reason="410 Unregistered""#
            ), "\(line)")
        #expect(!logger.isEnabled(.debug) && logger.isEnabled(.error))
        #expect(Logger.Level(name: "WARNING") == .warning && Logger.Level(name: "loud") == nil)
    }
}

private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    var sink: LogSink { LogSink { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite("Process metrics and JSON logs")
struct ProcessMetricsTests {
    @Test("the process series and herald_build_info, as Prometheus clients name them")
    func processSeries() throws {
        let metrics = MetricsRegistry()
        ProcessMetrics.register(in: metrics)
        let text = metrics.render()
        #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
        #expect(
            text.contains("herald_build_info{swift=\"\(BuildInfo.swiftVersion)\",version=\"\(BuildInfo.version)\"} 1"))
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                Double($0.split(separator: " ")[1])
            }
        }
        #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((value("process_open_fds") ?? 0) >= 3)
        #expect((value("process_max_fds") ?? 0) >= (value("process_open_fds") ?? 0))
        #expect(value("process_cpu_seconds_total") != nil)
    }

    @Test("--log-format json: one object per line, fields escaped")
    func jsonLines() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(
            label: "herald.test", level: .info, metadata: ["node": "n1"], format: .json,
            sink: LogSink { line in lines.withLock { $0.append(line) } })
        logger.warning("cannot reach \"APNs\"\n", ["business.id": "7", "message": "shadowed"])
        logger.debug("dropped")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("}\n"))
        #expect(line.contains(#""level":"warning","label":"herald.test","message":"cannot reach \"APNs\"\n""#))
        #expect(line.contains(#""business.id":"7","node":"n1"}"#))
        #expect(!line.contains("shadowed"))
    }
}
