import Foundation

/// The process's own series, as Prometheus client libraries name them, read from `/proc/self` at each scrape, and
/// `herald_build_info`.
package enum ProcessMetrics {
    /// Adds `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_cpu_seconds_total`,
    /// `process_open_fds`, `process_max_fds`, `process_start_time_seconds` and `herald_build_info` to `metrics`.
    package static func register(in metrics: MetricsRegistry) {
        metrics.sampledGauge(
            "herald_build_info", help: "Always 1; the labels say which build is running",
            labels: ["version": BuildInfo.version, "swift": BuildInfo.swiftVersion]
        ) { 1 }
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        metrics.sampledGauge("process_resident_memory_bytes", help: "Resident memory size in bytes") {
            statm().count > 1 ? statm()[1] * pageSize : 0
        }
        metrics.sampledGauge("process_virtual_memory_bytes", help: "Virtual memory size in bytes") {
            statm().first.map { $0 * pageSize } ?? 0
        }
        metrics.sampledCounter("process_cpu_seconds_total", help: "User and system CPU time spent in seconds") {
            let fields = stat()
            // utime and stime are fields 14 and 15 of /proc/self/stat; `fields` starts after the command's ")",
            // at field 3.
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / ticks
        }
        metrics.sampledGauge("process_open_fds", help: "Number of open file descriptors") {
            Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0)
        }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let maxFDs = Double(limit.rlim_cur)
        metrics.sampledGauge("process_max_fds", help: "Maximum number of open file descriptors") { maxFDs }
        let startTime = Date().timeIntervalSince1970
        metrics.sampledGauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch") {
            startTime
        }
    }

    private static func statm() -> [Double] {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return [] }
        return text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private static func stat() -> [String] {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return [] }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }
}
