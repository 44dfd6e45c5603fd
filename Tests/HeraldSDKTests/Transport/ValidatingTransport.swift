import HeraldTesting

@testable import HeraldSDK

/// The SDK's transport with every answer checked against docs/openapi.json (`OpenAPIValidator`): what the SDK
/// receives from a live Herald is judged as strictly as what the API tests' clients receive, each mismatch an issue
/// of the test running.
struct ValidatingTransport: HTTPTransport {
    /// What sends.
    let transport: any HTTPTransport

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let response = try await transport.send(request)
        // The URL's path and query: the part the document describes.
        let afterScheme = request.url.range(of: "://").map { request.url[$0.upperBound...] } ?? Substring(request.url)
        let target = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        OpenAPIValidator.record(
            OpenAPIValidator.shared.problems(
                .init(
                    method: request.method, target: target, status: response.status,
                    contentType: response.header("content-type"), body: response.body)))
        return response
    }
}
