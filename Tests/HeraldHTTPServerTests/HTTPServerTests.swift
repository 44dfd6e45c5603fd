import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// The HTTP server itself, on port 0, with a small router: keep-alive, limits, timeouts, request ids,
/// routing answers, parsing, graceful shutdown and the request metrics.
@Suite("HTTP server")
struct HTTPServerTests {
    /// A value handed from another thread.
    final class Box<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
        func set(_ newValue: Value) { value.withLock { $0 = newValue } }
        func get() -> Value? { value.withLock { $0 } }
    }

    /// Something a handler failed with that the server doesn't know.
    struct Unexpected: Error {}

    /// A server answering a few routes; shut down when released.
    final class TestServer: @unchecked Sendable {
        let server: HTTPServer
        let metrics = MetricsRegistry()
        var port: Int { server.port }

        init(configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws {
            var router = Router()
            router.get("/x") { _ in .json(["ok": true]) }
            router.get("/healthz") { _ in .json(["status": "ok"]) }
            router.get("/items/{id}") { request in .json(["id": .string(request.parameter("id") ?? "")]) }
            router.get("/items/{id}/tags/{tag}") { request in
                .json(["id": .string(request.parameter("id") ?? ""), "tag": .string(request.parameter("tag") ?? "")])
            }
            router.get("/items/special") { _ in .json(["special": true]) }
            router.get("/query") { request in
                .json(.array(request.query.map { .array([.string($0.name), .string($0.value)]) }))
            }
            let echo: HTTPHandler = { request in
                .json([
                    "method": .string(request.method.rawValue), "length": .int(Int64(request.body.count)),
                    "body": .string(request.body.count <= 4096 ? String(decoding: request.body, as: UTF8.self) : ""),
                    "json": (try? request.jsonBody()) ?? .null, "target": .string(request.target),
                    "path": .string(request.path),
                ])
            }
            router.get("/echo", echo)
            router.post("/echo", echo)
            router.get("/slow") { request in
                let millis = Int(request.queryValue("ms") ?? "1000") ?? 1000
                Thread.sleep(forTimeInterval: Double(millis) / 1000)  // a deliberately slow handler
                return .json(["slept": .int(Int64(millis))])
            }
            router.get("/fail") { _ in throw Unexpected() }
            router.get("/teapot") { _ in throw HTTPError(HTTPStatus(418), field: "base", "short and stout") }
            router.get("/request-id") { request in .json(["id": .string(request.id)]) }
            router.get("/remote") { request in .json(["remote": .string(request.remoteAddress ?? "")]) }
            router.get("/headers") { request in
                .json(.object(request.headers.map { (key: $0.name, value: .string($0.value)) }))
            }

            var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
            configuration.threadCount = 4
            configuration.connectionTimeout = .seconds(2)
            configure(&configuration)
            let application = Application(
                router: router,
                middleware: [
                    ObservabilityMiddleware(logger: .disabled, metrics: metrics), ErrorMiddleware(logger: .disabled),
                ])
            server = HTTPServer(configuration: configuration, responder: application, logger: .disabled)
            try server.start()
        }

        deinit { server.shutdown(gracePeriod: .seconds(2)) }

        func client(timeout: Double = 10) -> TestHTTPClient {
            let client = TestHTTPClient(port: port)
            client.timeout = timeout
            return client
        }

        func get(_ target: String, headers: [(String, String)] = []) throws -> TestHTTPClient.Response {
            try client().request("GET", target, headers: headers)
        }
    }

    func request(_ method: String, _ target: String, headers: [String] = [], body: String = "") -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for header in headers { head += header + "\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    // MARK: - Connections

    @Test func severalRequestsShareOneConnection() throws {
        let server = try TestServer()
        let client = server.client()
        // send(raw:) + readResponse() never reconnect silently: a closed connection fails the read.
        for index in 0..<5 {
            try client.send(raw: request("GET", "/items/\(index)"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.value?["id"] == .string("\(index)"))
            #expect(response.header("connection")?.lowercased() != "close")
        }
        // Pipelined: two requests in one write, two answers in order.
        try client.send(raw: request("GET", "/items/a") + request("POST", "/echo", body: #"{"n":1}"#))
        let first = try client.readResponse()
        let second = try client.readResponse(method: "POST")
        #expect(first.value?["id"] == "a")
        #expect(second.value?["json"] == .object([("n", 1)]))
    }

    @Test func http10ClosesAfterTheAnswer() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("GET /x HTTP/1.0\r\nHost: localhost\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.value?["ok"] == true)
        #expect(throws: TestHTTPClient.Failure.self) { try client.readResponse() }
    }

    @Test func connectionCloseIsHonoured() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: request("GET", "/x", headers: ["Connection: close"]))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("connection")?.lowercased() == "close")
    }

    @Test func aSlowClientIsDisconnectedAfterTheTimeout() throws {
        let server = try TestServer { $0.connectionTimeout = .seconds(1) }
        let client = server.client(timeout: 10)
        try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: localhost\r\nX-Half".utf8))
        let start = ContinuousClock.now
        var closedByServer = false
        do {
            let response = try client.readResponse()
            // An answer (a 408, say) before closing is acceptable too.
            #expect(response.status == 408, "\(response)")
            closedByServer = true
        } catch let failure as TestHTTPClient.Failure {
            closedByServer = failure.description.contains("closed") || failure.description.contains("errno 104")
            #expect(closedByServer, "\(failure)")
        }
        let elapsed = ContinuousClock.now - start
        #expect(closedByServer)
        #expect(elapsed >= .milliseconds(800), "closed after \(elapsed)")
        #expect(elapsed < .seconds(5), "closed after \(elapsed)")
        // The server still serves others.
        #expect(try server.get("/x").status == 200)
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterTheTimeout() throws {
        let server = try TestServer { $0.connectionTimeout = .seconds(1) }
        let client = server.client()
        try client.send(raw: request("GET", "/x"))
        #expect(try client.readResponse().status == 200)
        #expect(Poll.until { server.server.openConnections == 0 }, "the server closed the idle connection")
        #expect(throws: TestHTTPClient.Failure.self) {
            try client.send(raw: request("GET", "/x"))
            _ = try client.readResponse()
        }
    }

    @Test func aBodySentSlowlyButSteadilyIsRead() throws {
        let server = try TestServer { $0.connectionTimeout = .seconds(1) }
        let client = server.client()
        let body = #"{"slow":"but steady"}"#
        try client.send(raw: request("POST", "/echo", headers: ["Content-Length: \(body.utf8.count)"]))
        for byte in body.utf8 {
            Thread.sleep(forTimeInterval: 0.05)  // the slow client: a byte every 50 ms
            try client.send(raw: [byte])
        }
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 200)
        #expect(response.value?["body"] == .string(body))
    }

    @Test func aBodyStillTricklingInAfterTheBodyTimeoutIsCutOff() throws {
        // Never idle for a whole second, so the idle timeout never fires; the body timeout does.
        let server = try TestServer {
            $0.connectionTimeout = .seconds(1)
            $0.bodyTimeout = .milliseconds(600)
        }
        let client = server.client()
        client.timeout = 5
        try client.send(raw: request("POST", "/echo", headers: ["Content-Length: 100"]))
        let started = Date()
        var cutOff = false
        for _ in 0..<40 where !cutOff {
            Thread.sleep(forTimeInterval: 0.1)  // the trickle: a byte every 100 ms
            do { try client.send(raw: [UInt8(ascii: "x")]) } catch { cutOff = true }
        }
        let answer = try? client.readResponse(method: "POST")
        #expect(answer == nil, "closed without an answer: libmicrohttpd takes none mid-body")
        #expect(Date().timeIntervalSince(started) < 3, "the connection was cut off, not left to trickle")
        #expect(try server.get("/x").status == 200, "the server goes on")
    }

    @Test func aLongBodyThatKeepsUpTheMinimumRateIsNotCutOff() throws {
        // A second at 2,000 bytes/s: past the 300 ms timeout, but faster than the 1,000 bytes/s required beyond it.
        let server = try TestServer {
            $0.bodyTimeout = .milliseconds(300)
            $0.minimumBodyRate = 1000
        }
        let client = server.client()
        let body = #"{"slow":""# + String(repeating: "x", count: 1984) + #""}"#
        try client.send(raw: request("POST", "/echo", headers: ["Content-Length: \(body.utf8.count)"]))
        let bytes = Array(body.utf8)
        for start in stride(from: 0, to: bytes.count, by: 200) {
            Thread.sleep(forTimeInterval: 0.1)  // the rate: 200 bytes every 100 ms
            try client.send(raw: Array(bytes[start..<min(start + 200, bytes.count)]))
        }
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 200)
    }
}

extension TestHTTPClient.Response {
    /// The body parsed as JSON.
    var value: JSON? { try? JSON.parse(body) }

    /// `{"errors":{field:[messages]}}` as a dictionary; nil for any other shape.
    var errorFields: [String: [String]]? {
        guard let pairs = value?.objectValue, pairs.count == 1, pairs[0].key == "errors",
            let errors = pairs[0].value.objectValue
        else { return nil }
        var fields: [String: [String]] = [:]
        for pair in errors {
            guard let messages = pair.value.arrayValue?.compactMap(\.stringValue), !messages.isEmpty else { return nil }
            fields[pair.key] = messages
        }
        return fields
    }

    /// True when the content type says JSON.
    var isJSON: Bool { header("content-type")?.hasPrefix("application/json") == true }
}
