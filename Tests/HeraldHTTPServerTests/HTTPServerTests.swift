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
        private let value = Mutex<Value?>(nil)
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

    private func request(_ method: String, _ target: String, headers: [String] = [], body: String = "") -> [UInt8] {
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

    // MARK: - Limits

    @Test func aDeclaredBodyOverOneMebibyteIs413() throws {
        let server = try TestServer()
        let client = server.client()
        // Only the head is sent: the server must answer without waiting for the body.
        try client.send(
            raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(response.header("x-request-id")?.isEmpty == false)
        #expect(try server.get("/x").status == 200)
    }

    @Test func aBodyOfExactlyOneMebibyteIsAccepted() throws {
        let server = try TestServer()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let response = try server.client().request("POST", "/echo", body: body)
        #expect(response.status == 200, "\(response.status)")
        #expect(response.value?["length"] == .int(1 << 20))
    }

    @Test func aChunkedBodyOverOneMebibyteIs413() throws {
        let server = try TestServer()
        let client = server.client()
        var bytes = Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "b"), count: 64 * 1024)
        for _ in 0..<17 {  // 1088 KiB
            bytes += Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        try client.send(raw: bytes)
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(try server.get("/x").status == 200)
    }

    @Test func aSmallChunkedBodyIsReassembled() throws {
        let server = try TestServer()
        let client = server.client()
        let raw =
            "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\n{\"a\"\r\n" + "6\r\n:\"hi\"}\r\n" + "0\r\n\r\n"
        try client.send(raw: Array(raw.utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 200)
        #expect(response.value?["body"] == #"{"a":"hi"}"#)
        #expect(response.value?["json"] == ["a": "hi"])
    }

    @Test func moreThanAHundredHeadersIs431() throws {
        let server = try TestServer()
        // Host plus 99 more: 100 headers, the most allowed.
        let allowed = (1...99).map { "X-Header-\($0): \($0)" }
        let ok = server.client()
        try ok.send(raw: request("GET", "/x", headers: allowed))
        #expect(try ok.readResponse().status == 200)

        let client = server.client()
        try client.send(raw: request("GET", "/x", headers: allowed + ["X-Header-100: 100"]))
        let response = try client.readResponse()
        #expect(response.status == 431)
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        #expect(try server.get("/x").status == 200)
    }

    @Test func anHTTP11RequestWithoutHostIs400() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("GET /x HTTP/1.1\r\nAccept: */*\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 400)  // RFC 9112 §3.2
        #expect(response.isJSON)
        #expect(response.errorFields?.keys.sorted() == ["base"], "\(response)")
        // A later 1.x is served as 1.1, so it needs one too.
        let later = server.client()
        try later.send(raw: Array("GET /x HTTP/1.2\r\n\r\n".utf8))
        #expect(try later.readResponse().status == 400)
        // HTTP/1.0 had no Host.
        let old = server.client()
        try old.send(raw: Array("GET /x HTTP/1.0\r\n\r\n".utf8))
        #expect(try old.readResponse().status == 200)
    }

    @Test("a body whose end is in doubt is refused before it is read, and the connection closed")
    func ambiguousFramingIsRefused() throws {
        let server = try TestServer()
        // Two lengths: a proxy in front that takes the other would see the "body" as a second request.
        for (head, status) in [
            // (A list in one field, `Content-Length: 0, 37`, libmicrohttpd refuses itself, in HTML.)
            ("Content-Length: 0\r\nContent-Length: 37", 400),
            ("Content-Length: 5\r\nTransfer-Encoding: chunked", 400), ("Content-Length: 5\r\nTransfer-Encoding: ", 400),
            ("Transfer-Encoding: gzip", 501), ("Transfer-Encoding: gzip, chunked", 501),
            // What libmicrohttpd would not read as chunked, and would read until the connection closes.
            ("Transfer-Encoding: ", 400), ("Transfer-Encoding: chunked, chunked", 400),
            ("Transfer-Encoding: , chunked", 400),
            ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", 400),
        ] {
            let client = server.client()
            try client.send(
                raw: Array(
                    "POST /echo HTTP/1.1\r\nHost: localhost\r\n\(head)\r\n\r\nGET /x HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        .utf8))
            let response = try client.readResponse(method: "POST")
            #expect(response.status == status, "\(head): \(response)")
            #expect(response.isJSON, "\(head)")
            #expect(response.header("connection") == "close", "\(head)")
            #expect(throws: (any Error).self, "\(head): nothing after it is served") { try client.readResponse() }
        }
        // The same length twice is one length.
        let client = server.client()
        try client.send(
            raw: Array(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}".utf8))
        #expect(try client.readResponse(method: "POST").status == 200)
    }

    @Test func headersOverTheLimitAre431() throws {
        let server = try TestServer()
        // Over 32 KiB of header fields, within the connection's memory: Herald's own JSON 431.
        let big = server.client()
        try big.send(raw: request("GET", "/x", headers: ["X-Big: " + String(repeating: "a", count: 40_000)]))
        let response = try big.readResponse()
        #expect(response.status == 431)
        #expect(response.isJSON)
        #expect(response.errorFields?["base"]?.first?.contains("at most 32768") == true, "\(response)")
        // A head that does not fit the connection's memory at all: libmicrohttpd answers it itself (its own HTML
        // body); the server must survive it.
        let huge = server.client()
        try huge.send(raw: request("GET", "/x", headers: ["X-Big: " + String(repeating: "a", count: 100_000)]))
        #expect(try huge.readResponse().status == 431)
        #expect(try server.get("/x").status == 200)
    }

    @Test(arguments: ["99999999999999999999", "18446744073709551616"])
    func anAbsurdContentLengthIsRefused(_ length: String) throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(length)\r\n\r\n".utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413 || response.status == 400, "\(response.status)")
        #expect(try server.get("/x").status == 200)
    }

    // MARK: - Request ids

    @Test func everyAnswerCarriesARequestID() throws {
        let server = try TestServer()
        let first = try server.get("/x")
        let second = try server.get("/x")
        let firstID = try #require(first.header("x-request-id"))
        let secondID = try #require(second.header("x-request-id"))
        #expect(!firstID.isEmpty)
        #expect(firstID != secondID)
        // The handler sees the same id it is answered with.
        let echoed = try server.get("/request-id")
        #expect(echoed.value?["id"] == .string(echoed.header("x-request-id") ?? "?"))
        // Error answers have one too.
        #expect(try server.get("/nowhere").header("x-request-id")?.isEmpty == false)
        #expect(try server.get("/fail").header("x-request-id")?.isEmpty == false)
    }

    @Test(arguments: ["abc-123_X.y", "0f8fad5b-d9cb-469f-a165-70867728950e", String(repeating: "a", count: 64)])
    func aSaneClientRequestIDIsEchoed(_ id: String) throws {
        let server = try TestServer()
        let response = try server.get("/request-id", headers: [("X-Request-ID", id)])
        #expect(response.header("x-request-id") == id)
        #expect(response.value?["id"] == .string(id))
    }

    @Test(arguments: [
        "has space", String(repeating: "a", count: 65), "<script>", "semi;colon", "quote\"d", "new%0Aline", "ümlaut",
        "a/b",
    ])
    func anInsaneClientRequestIDIsReplaced(_ id: String) throws {
        let server = try TestServer()
        let response = try server.get("/request-id", headers: [("X-Request-ID", id)])
        let answered = try #require(response.header("x-request-id"))
        #expect(answered != id)
        #expect(!answered.isEmpty)
        #expect(answered.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        #expect(response.value?["id"] == .string(answered))
    }

    @Test(.bug(id: "apitests-9", "the server's own 413 and 431 answers ignore the client's x-request-id"))
    func aSaneClientRequestIDIsEchoedOnLimitAnswers() throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(
            raw: Array(
                "POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: upload-7\r\nContent-Length: 2000000\r\n\r\n"
                    .utf8))
        let tooLarge = try client.readResponse(method: "POST")
        #expect(tooLarge.status == 413)
        let other = server.client()
        try other.send(
            raw: request("GET", "/x", headers: ["X-Request-ID: many-headers-7"] + (1...100).map { "X-H\($0): v" }))
        let tooMany = try other.readResponse()
        #expect(tooMany.status == 431)
        #expect(tooLarge.header("x-request-id") == "upload-7")
        #expect(tooMany.header("x-request-id") == "many-headers-7")
    }

    // MARK: - Routing answers

    @Test func anUnknownPathIs404JSON() throws {
        let server = try TestServer()
        let response = try server.get("/nowhere")
        #expect(response.status == 404)
        #expect(response.isJSON)
        #expect(response.errorFields == ["base": ["no route for GET /nowhere"]])
        #expect(try server.get("/items").status == 404)
        #expect(try server.get("/items/1/tags").status == 404)
        #expect(try server.get("/x/y").status == 404)
    }

    @Test func aKnownPathWithAnotherMethodIs405WithAllow() throws {
        let server = try TestServer()
        let post = try server.client().request("POST", "/x", body: Array("{}".utf8))
        #expect(post.status == 405)
        #expect(post.isJSON)
        #expect(post.header("allow") == "GET")
        #expect(post.errorFields?.keys.sorted() == ["base"])

        let delete = try server.client().request("DELETE", "/echo")
        #expect(delete.status == 405)
        #expect(delete.header("allow") == "GET, POST")

        let odd = try server.client().request("BREW", "/x")
        #expect(odd.status == 405 || odd.status == 501, "\(odd)")
    }

    @Test func headIsAnsweredByTheGetRoute() throws {
        let server = try TestServer()
        let get = try server.get("/x")
        let head = try server.client().request("HEAD", "/x")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.isJSON)
        #expect(head.header("content-length") == get.header("content-length"))
        #expect(try server.client().request("HEAD", "/nowhere").status == 404)
    }

    @Test func aHandlerErrorIs500WithoutDetails() throws {
        let server = try TestServer()
        let response = try server.get("/fail")
        #expect(response.status == 500)
        #expect(response.isJSON)
        let message = try #require(response.errorFields?["base"]?.first)
        #expect(message.contains(response.header("x-request-id") ?? "?"))
        #expect(!message.contains("Unexpected"))
        // A thrown HTTPError keeps its own status.
        let teapot = try server.get("/teapot")
        #expect(teapot.status == 418)
        #expect(teapot.errorFields == ["base": ["short and stout"]])
    }

    // MARK: - Parsing

    @Test(arguments: [
        ("/items/hello%20world", "hello world"), ("/items/caf%C3%A9", "café"), ("/items/a+b", "a+b"),
        ("/items/100%25", "100%"),
        ("/items/%7Bid%7D", "{id}"), ("/items/bad%zzescape", "bad%zzescape"), ("/items/%F0%9F%8D%94", "🍔"),
    ])
    func pathParametersArePercentDecoded(target: String, id: String) throws {
        let server = try TestServer()
        let response = try server.get(target)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["id"] == .string(id))
    }

    @Test(.bug(id: "apitests-5", "an encoded slash in a path parameter splits the path"))
    func anEncodedSlashStaysInsideItsParameter() throws {
        let server = try TestServer()
        let response = try server.get("/items/a%2Fb")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["id"] == "a/b")
    }

    @Test func literalSegmentsWinAndSeveralParametersAreCaptured() throws {
        let server = try TestServer()
        #expect(try server.get("/items/special").value?["special"] == true)
        let tagged = try server.get("/items/7/tags/new%20in")
        #expect(tagged.value?["id"] == "7")
        #expect(tagged.value?["tag"] == "new in")
    }

    @Test func theQueryIsParsedInOrder() throws {
        let server = try TestServer()
        let response = try server.get("/query?a=1&b=two%20words&c=x+y&d&a=2&e=%E2%9C%93&f=%zz&&g=&h=a%3Db%26c")
        #expect(response.status == 200)
        let list = try #require(response.value?.arrayValue)
        let pairs = list.map { $0.arrayValue?.compactMap(\.stringValue) ?? [] }
        #expect(
            pairs == [
                ["a", "1"], ["b", "two words"], ["c", "x y"], ["d", ""], ["a", "2"], ["e", "✓"], ["f", "%zz"],
                ["g", ""], ["h", "a=b&c"],
            ])
        #expect(try server.get("/query").value == [])
        #expect(try server.get("/query?").value == [])
    }

    @Test func theTargetIsKeptExactlyAsSent() throws {
        let server = try TestServer()
        let response = try server.get("/echo?b=2&a=%41")
        #expect(response.value?["target"] == "/echo?b=2&a=%41")
        #expect(response.value?["path"] == "/echo")
    }

    @Test func aJSONBodyOnGetReachesTheHandler() throws {
        let server = try TestServer()
        let body = #"{"client":"abc","qty":2}"#
        let response = try server.client().request(
            "GET", "/echo", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(response.status == 200)
        #expect(response.value?["method"] == "GET")
        #expect(response.value?["body"] == .string(body))
        #expect(response.value?["json"] == ["client": "abc", "qty": 2])
    }

    @Test func bodyBytesArrivePrecisely() throws {
        let server = try TestServer()
        let body: [UInt8] = [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0x00, 0xE2, 0x9C, 0x93, 0x0D, 0x0A, 0x22, 0x7D]
        let response = try server.client().request("POST", "/echo", body: body)
        #expect(response.value?["length"] == .int(Int64(body.count)))
    }

    @Test func headerNamesAreLowerCasedAndValuesKept() throws {
        let server = try TestServer()
        let response = try server.get(
            "/headers", headers: [("X-Mixed-Case", "Value With  Spaces"), ("x-pch-digest", "ABCDEF")])
        #expect(response.value?["x-mixed-case"] == "Value With  Spaces")
        #expect(response.value?["x-pch-digest"] == "ABCDEF")
    }

    @Test func garbageRequestsDoNotHurtTheServer() throws {
        let server = try TestServer()
        for garbage in [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\r\n\r\n\r\n",
            "GET /x HTTP/1.1\r\nBad Header\r\n\r\n",
        ] {
            let client = server.client(timeout: 5)
            try? client.send(raw: Array(garbage.utf8))
            if let response = try? client.readResponse() {
                #expect(
                    response.status >= 400 && response.status < 600 || response.status == 200, "\(garbage): \(response)"
                )
            }
        }
        #expect(try server.get("/x").status == 200)
    }

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
