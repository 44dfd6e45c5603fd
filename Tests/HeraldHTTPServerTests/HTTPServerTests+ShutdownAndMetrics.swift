import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// Shutdown and metrics.
extension HTTPServerTests {
    // MARK: - Shutdown

    @Test func shutdownLetsAnInFlightRequestFinish() throws {
        let server = try TestServer()
        let port = server.port
        let result = Box<Result<TestHTTPClient.Response, any Error>>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let client = TestHTTPClient(port: port)
            client.timeout = 10
            let outcome = Result { try client.request("GET", "/slow?ms=800") }
            result.set(outcome)
            done.signal()
        }
        thread.start()
        // Wait for the request to be in the handler.
        server.server.waitForRequestsInFlight { $0 > 0 }
        #expect(server.server.requestsInFlight == 1)

        let start = ContinuousClock.now
        server.server.shutdown(gracePeriod: .seconds(5))
        let waited = ContinuousClock.now - start
        #expect(done.wait(timeout: .now() + 5) == .success)
        let response = try #require(try result.get()?.get())
        #expect(response.status == 200)
        #expect(response.value?["slept"] == 800)
        #expect(waited >= .milliseconds(400), "shutdown returned after \(waited)")
        #expect(waited < .seconds(5))

        // Nothing listens any more.
        #expect(throws: TestHTTPClient.Failure.self) { try TestHTTPClient(port: port).request("GET", "/x") }
    }

    @Test func requestsArrivingDuringShutdownAre503() throws {
        let server = try TestServer()
        let port = server.port
        let slowDone = DispatchSemaphore(value: 0)
        Thread {
            let client = TestHTTPClient(port: port)
            client.timeout = 10
            _ = try? client.request("GET", "/slow?ms=1000")
            slowDone.signal()
        }.start()
        server.server.waitForRequestsInFlight { $0 > 0 }
        let late = Box<Result<TestHTTPClient.Response, any Error>>()
        let lateDone = DispatchSemaphore(value: 0)
        Thread {
            Poll.until { server.server.isDraining }
            late.set(Result { try TestHTTPClient(port: port).request("GET", "/x") })
            lateDone.signal()
        }.start()
        server.server.shutdown(gracePeriod: .seconds(5))
        #expect(slowDone.wait(timeout: .now() + 5) == .success)
        #expect(lateDone.wait(timeout: .now() + 5) == .success)
        let response = try #require(try late.get()?.get())
        #expect(response.status == 503)
        #expect(response.isJSON)
        #expect(response.header("retry-after") == "1")
        #expect(response.header("connection")?.lowercased() == "close")
        #expect(response.errorFields?.keys.sorted() == ["base"])
    }

    @Test func shutdownGivesUpAfterTheGracePeriod() throws {
        let server = try TestServer()
        let port = server.port
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let client = TestHTTPClient(port: port)
            client.timeout = 10
            _ = try? client.request("GET", "/slow?ms=3000")
            done.signal()
        }
        thread.start()
        server.server.waitForRequestsInFlight { $0 > 0 }
        let start = ContinuousClock.now
        server.server.shutdown(gracePeriod: .milliseconds(300))
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(250))
        #expect(waited < .seconds(3) + .milliseconds(500), "shutdown took \(waited)")
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test func shutdownTwiceIsHarmless() throws {
        let server = try TestServer()
        #expect(try server.get("/x").status == 200)
        server.server.shutdown(gracePeriod: .milliseconds(100))
        server.server.shutdown(gracePeriod: .milliseconds(100))
        #expect(server.server.requestsInFlight == 0)
    }

    // MARK: - Metrics

    @Test func requestsAreCountedPerRouteAndStatus() throws {
        let server = try TestServer()
        for _ in 0..<3 { #expect(try server.get("/x").status == 200) }
        for id in ["1", "2"] { #expect(try server.get("/items/\(id)").status == 200) }
        #expect(try server.get("/nowhere").status == 404)
        #expect(try server.get("/fail").status == 500)
        #expect(try server.client().request("POST", "/x", body: Array("{}".utf8)).status == 405)
        // Refused before routing, by the server itself: counted too.
        let refused = server.client()
        try refused.send(
            raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8))
        #expect(try refused.readResponse(method: "POST").status == 413)

        let text = server.metrics.render()
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"herald_http_requests_total{method="GET",route="/x",status="200"} 3"#), "\(text)")
        #expect(lines.contains(#"herald_http_requests_total{method="GET",route="/items/{id}",status="200"} 2"#))
        #expect(lines.contains(#"herald_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(lines.contains(#"herald_http_requests_total{method="GET",route="/fail",status="500"} 1"#))
        #expect(lines.contains(#"herald_http_requests_total{method="POST",route="unmatched",status="405"} 1"#))
        #expect(lines.contains(#"herald_http_requests_total{method="POST",route="refused",status="413"} 1"#))
        #expect(lines.contains("# TYPE herald_http_requests_total counter"))
        #expect(lines.contains("# TYPE herald_http_request_duration_seconds histogram"))
        // Ids never become label values.
        #expect(!text.contains(#"route="/items/1""#))

        #expect(lines.contains(#"herald_http_request_duration_seconds_bucket{route="/x",le="+Inf"} 3"#))
        #expect(lines.contains(#"herald_http_request_duration_seconds_count{route="/x"} 3"#))
        #expect(lines.contains(#"herald_http_request_duration_seconds_bucket{route="/items/{id}",le="+Inf"} 2"#))
        // Buckets are cumulative: never decreasing, ending at the count.
        let buckets = text.split(separator: "\n").filter {
            $0.hasPrefix(#"herald_http_request_duration_seconds_bucket{route="/x","#)
        }
        let counts = buckets.compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(counts.count == Histogram.latencyBuckets.count + 1)
        #expect(counts == counts.sorted())
        #expect(counts.last == 3)
        #expect(buckets.first?.contains(#"le="0.0001""#) == true)
        let sum = text.split(separator: "\n").first {
            $0.hasPrefix(#"herald_http_request_duration_seconds_sum{route="/x"}"#)
        }
        #expect(sum.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 0 && $0 < 5 } == true)
    }

    @Test(.bug(id: "apitests-10", "any method token a client invents becomes a new metrics series"))
    func clientInventedMethodsDoNotMultiplySeries() throws {
        let server = try TestServer()
        for index in 0..<30 {
            let client = server.client()
            try client.send(raw: Array("X\(index)METHOD /x HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            #expect(try client.readResponse().status == 405)
        }
        let series = server.metrics.render().split(separator: "\n").filter {
            $0.hasPrefix("herald_http_requests_total{")
        }
        #expect(series.count <= 2, "\(series.count) series: \(series.prefix(3))…")
    }

    @Test func aSlowRequestLandsInAHighBucket() throws {
        let server = try TestServer()
        #expect(try server.get("/slow?ms=300").status == 200)
        let lines = Set(server.metrics.render().split(separator: "\n").map(String.init))
        #expect(lines.contains(#"herald_http_request_duration_seconds_bucket{route="/slow",le="0.25"} 0"#))
        #expect(lines.contains(#"herald_http_request_duration_seconds_bucket{route="/slow",le="0.5"} 1"#))
    }
}
