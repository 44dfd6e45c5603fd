import HeraldHTTPServer
import HeraldModel
import HeraldObservability

/// `/healthz`, `/metrics` and `/openapi.json` (the document embedded in the binary: `OpenAPIDocument`).
struct SystemController: Sendable {
    let metrics: MetricsRegistry

    func register(in router: inout Router) {
        router.get("/healthz") { _ in .json(["status": "ok"]) }
        let metrics = self.metrics
        ProcessMetrics.register(in: metrics)
        router.get("/metrics") { _ in
            .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        let openAPI = Array(OpenAPIDocument.text.utf8)
        router.get("/openapi.json") { _ in .json(openAPI) }
    }
}
