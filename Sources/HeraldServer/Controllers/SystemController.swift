import HeraldHTTP
import HeraldModel
import HeraldObservability

/// `/healthz` and `/metrics`.
struct SystemController: Sendable {
    let metrics: MetricsRegistry

    func register(in router: inout Router) {
        router.get("/healthz") { _ in .json(["status": "ok"]) }
        let metrics = self.metrics
        ProcessMetrics.register(in: metrics)
        router.get("/metrics") { _ in
            .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
