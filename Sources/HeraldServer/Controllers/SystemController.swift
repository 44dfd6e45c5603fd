import HeraldHTTP
import HeraldModel
import HeraldObservability

/// `/healthz`, `/metrics` and `/openapi.json`.
struct SystemController: Sendable {
    let metrics: MetricsRegistry
    /// The OpenAPI document's bytes, when Herald found it (`HeraldConfiguration.openAPIFile`).
    let openAPI: [UInt8]?

    func register(in router: inout Router) {
        router.get("/healthz") { _ in .json(["status": "ok"]) }
        let metrics = self.metrics
        ProcessMetrics.register(in: metrics)
        router.get("/metrics") { _ in
            .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        let openAPI = self.openAPI
        router.get("/openapi.json") { _ in
            guard let openAPI else {
                throw HTTPError.notFound(
                    "the OpenAPI document is not installed: put docs/openapi.json next to the herald binary, or in "
                        + "../share/herald/ from it")
            }
            return .json(openAPI)
        }
    }
}
