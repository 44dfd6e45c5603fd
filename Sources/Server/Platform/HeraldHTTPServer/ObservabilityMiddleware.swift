import HeraldObservability
import Synchronization

/// The access log and per-route request metrics (the server itself puts `x-request-id` on every answer).
///
/// Metrics: `herald_http_requests_total{method,route,status}` and
/// `herald_http_request_duration_seconds{route}`. Routes are patterns (`/api2/mobile/notifications/{id}`),
/// so ids never multiply the series. The log carries the path, never the query or headers.
package struct ObservabilityMiddleware: HTTPMiddleware {
    private struct CounterKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private final class Cache: Sendable {
        let counters = Mutex<[CounterKey: Counter]>([:])
        let histograms = Mutex<[String: Histogram]>([:])
    }

    private let logger: Logger
    private let metrics: MetricsRegistry
    private let cache = Cache()

    /// Logs each request to `logger` at info and records it in `metrics`.
    package init(logger: Logger, metrics: MetricsRegistry) {
        self.logger = logger
        self.metrics = metrics
    }

    package func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        let start = ContinuousClock.now
        let response = try next(request)
        let elapsed = ContinuousClock.now - start
        let route = request.route ?? "unmatched"
        histogram(route).observe(elapsed)
        record(request, response, route: route, elapsed: elapsed)
        return response
    }

    /// Requests the server refused before routing are counted under the route `refused` and logged like the rest.
    package func refused(_ request: HTTPRequest, with response: HTTPResponse) {
        record(request, response, route: "refused", elapsed: nil)
    }

    private func record(_ request: HTTPRequest, _ response: HTTPResponse, route: String, elapsed: Duration?) {
        counter(request.method.rawValue, route, response.status.code).increment()
        guard logger.isEnabled(.info) else { return }
        var fields = [
            "request.id": request.id, "http.method": request.method.rawValue, "http.path": request.path,
            "http.route": route, "http.status": String(response.status.code), "remote": request.remoteAddress ?? "",
        ]
        if let elapsed {
            fields["duration_ms"] = String(Double(Int(elapsed / .microseconds(1))) / 1000)
        }
        logger.info("request", fields)
    }

    /// Methods kept as labels; any other token a client invents is counted as `other`, so clients can't grow
    /// the series without bound.
    private static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    private func counter(_ method: String, _ route: String, _ status: Int) -> Counter {
        let method = Self.knownMethods.contains(method) ? method : "other"
        let key = CounterKey(method: method, route: route, status: status)
        if let existing = cache.counters.withLock({ $0[key] }) { return existing }
        let created = metrics.counter(
            "herald_http_requests_total", help: "HTTP requests answered, by method, route and status.",
            labels: ["method": method, "route": route, "status": String(status)])
        cache.counters.withLock { $0[key] = created }
        return created
    }

    private func histogram(_ route: String) -> Histogram {
        if let existing = cache.histograms.withLock({ $0[route] }) { return existing }
        let created = metrics.histogram(
            "herald_http_request_duration_seconds", help: "Time to answer HTTP requests, by route.",
            labels: ["route": route])
        cache.histograms.withLock { $0[route] = created }
        return created
    }
}
