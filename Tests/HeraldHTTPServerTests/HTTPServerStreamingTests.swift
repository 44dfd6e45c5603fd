import Foundation
import HeraldHTTPServer
import HeraldObservability
import HeraldTesting
import Testing

/// `Router.stream`: a route that takes its body as it arrives, at any size, behind the same middleware.
@Suite("HTTP server streamed bodies")
struct HTTPServerStreamingTests {
    /// Counts bytes and newlines, keeping nothing; refuses a body containing `!` (after reading all of it).
    final class Counter: HTTPBodyConsumer {
        var bytes = 0
        var lines = 0
        var pieces = 0
        var largestPiece = 0

        func receive(_ bytes: UnsafeRawBufferPointer) throws {
            self.bytes += bytes.count
            pieces += 1
            largestPiece = max(largestPiece, bytes.count)
            lines += bytes.count { $0 == 0x0A }
            if bytes.contains(UInt8(ascii: "!")) { throw HTTPError.invalid("body", "has a !") }
        }

        func finish() throws -> HTTPResponse {
            .json(
                .object([
                    ("bytes", .int(Int64(bytes))), ("lines", .int(Int64(lines))), ("pieces", .int(Int64(pieces))),
                    ("largest_piece", .int(Int64(largestPiece))),
                ]))
        }
    }

    /// Answers every request with its route, so the tests see the middleware ran.
    struct RouteHeader: HTTPMiddleware {
        func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
            var response = try next(request)
            response.headers.append(("x-route", request.route ?? "none"))
            return response
        }
    }

    final class Fixture {
        let server: HTTPServer
        let application: Application

        init() throws {
            var router = Router()
            router.stream(.post, "/count/{name}") { head in
                guard head.header("authorization") == "Bearer yes" else {
                    throw HTTPError(.unauthorized, field: "base", "no")
                }
                guard head.parameter("name") == "lines" else { throw HTTPError.notFound("no such counter") }
                return Counter()
            }
            router.post("/echo") { request in .json(.object([("count", .int(Int64(request.body.count)))])) }
            let logger = Logger(label: "test", level: .critical)
            application = Application(router: router, middleware: [RouteHeader(), ErrorMiddleware(logger: logger)])
            server = HTTPServer(
                configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), responder: application,
                logger: logger)
            try server.start()
        }

        deinit { server.shutdown(gracePeriod: .seconds(1)) }

        func client() -> TestHTTPClient { TestHTTPClient(port: server.port) }
    }

    static func body(lines: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<lines { bytes += Array("{\"line\":\(index),\"padding\":\"xxxxxxxxxxxxxxxxxxxx\"}\n".utf8) }
        return bytes
    }

    static func object(_ response: TestHTTPClient.Response) -> [String: Any] {
        response.json as? [String: Any] ?? [:]
    }

    @Test func aStreamedRouteTakesBodiesFarOverTheLimitPieceByPiece() throws {
        let fixture = try Fixture()
        let body = Self.body(lines: 100_000)  // 4.8 MB, over four times maxBodySize
        #expect(body.count > 4 << 20)
        let response = try fixture.client().request(
            "POST", "/count/lines", headers: [("Authorization", "Bearer yes")], body: body)
        #expect(response.status == 200, "\(response)")
        let answer = Self.object(response)
        #expect(answer["bytes"] as? Int == body.count)
        #expect(answer["lines"] as? Int == 100_000)
        #expect((answer["pieces"] as? Int ?? 0) > 10)
        #expect((answer["largest_piece"] as? Int ?? .max) <= 1 << 20)
        #expect(response.header("x-route") == "/count/{name}")
    }

    @Test func chunkedBodiesStreamToo() throws {
        let fixture = try Fixture()
        let body = Self.body(lines: 40_000)
        let client = fixture.client()
        var raw = Array(
            "POST /count/lines HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer yes\r\nTransfer-Encoding: chunked\r\n\r\n"
                .utf8)
        var offset = 0
        while offset < body.count {
            let end = min(offset + 10_000, body.count)
            raw += Array("\(String(end - offset, radix: 16))\r\n".utf8) + body[offset..<end] + [13, 10]
            offset = end
        }
        raw += Array("0\r\n\r\n".utf8)
        try client.send(raw: raw)
        let response = try client.readResponse()
        #expect(response.status == 200, "\(response)")
        #expect(Self.object(response)["lines"] as? Int == 40_000)
        // The connection stays usable.
        let next = try client.request("POST", "/echo", body: Array("hi".utf8))
        #expect(next.status == 200)
    }

    @Test func theOpenerRefusesBeforeTheBodyIsRead() throws {
        let fixture = try Fixture()
        let client = fixture.client()
        // Declares 100 MB and sends none of it: the answer comes from the head alone.
        try client.send(raw: Array("POST /count/lines HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 401, "\(response)")
        #expect(response.text == #"{"errors":{"base":["no"]}}"#)
        let other = try fixture.client().request(
            "POST", "/count/other", headers: [("Authorization", "Bearer yes")], body: Array("x".utf8))
        #expect(other.status == 404, "\(other)")
    }

    @Test func aConsumerThatStopsAnswersWithItsErrorOnceTheBodyIsIn() throws {
        let fixture = try Fixture()
        let client = fixture.client()
        let body = Array("a\nb!\n".utf8) + Self.body(lines: 50_000)
        let response = try client.request(
            "POST", "/count/lines", headers: [("Authorization", "Bearer yes")], body: body)
        #expect(response.status == 422, "\(response)")
        #expect(response.text == #"{"errors":{"body":["has a !"]}}"#)
        #expect(try client.request("POST", "/echo", body: [1]).status == 200)
    }

    @Test func otherRoutesKeepTheirLimit() throws {
        let fixture = try Fixture()
        let response = try fixture.client().request("POST", "/echo", body: Self.body(lines: 30_000))
        #expect(response.status == 413)
    }

    @Test func anEmptyBodyOrACollectedOneIsConsumedTheSameWay() throws {
        let fixture = try Fixture()
        let empty = try fixture.client().request("POST", "/count/lines", headers: [("Authorization", "Bearer yes")])
        #expect(empty.status == 200, "\(empty)")
        #expect(Self.object(empty)["bytes"] as? Int == 0)
        // A responder called directly (no server streaming) hands the route its collected body.
        let request = HTTPRequest(
            method: .post, target: "/count/lines", headers: [("authorization", "Bearer yes")],
            body: Array("1\n2\n3\n".utf8))
        let direct = try fixture.application.respond(to: request)
        guard case .bytes(let bytes) = direct.body else {
            Issue.record("not a byte body")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""lines":3"#))
        let refused = HTTPRequest(method: .post, target: "/count/lines", body: Array("1\n".utf8))
        #expect(try fixture.application.respond(to: refused).status == .unauthorized)
    }
}
