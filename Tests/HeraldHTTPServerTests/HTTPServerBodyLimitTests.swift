import Foundation
import HeraldHTTPServer
import HeraldObservability
import HeraldTesting
import Testing

/// `HTTPServer.Configuration.bodyLimit`: one route takes large uploads, every other keeps `maxBodySize`.
@Suite("HTTP server per-route body limits")
struct HTTPServerBodyLimitTests {
    /// A server whose `/upload` routes take up to 8 MiB; `/echo` keeps the 1 MiB default. Both answer with the
    /// body's length and a checksum of it.
    final class Fixture {
        let server: HTTPServer

        init() throws {
            var router = Router()
            let answer: HTTPHandler = { request in
                let sum = request.body.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
                return .json(.object([("count", .int(Int64(request.body.count))), ("sum", .string(String(sum)))]))
            }
            router.post("/echo", answer)
            router.post("/upload/{name}", answer)
            var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
            configuration.bodyLimit = { method, path, _ in
                method == .post && path.hasPrefix("/upload/") ? 8 << 20 : nil
            }
            let logger = Logger(label: "test", level: .critical)
            server = HTTPServer(
                configuration: configuration,
                responder: Application(router: router, middleware: [ErrorMiddleware(logger: logger)]), logger: logger)
            try server.start()
        }

        deinit { server.shutdown(gracePeriod: .seconds(1)) }

        func client() -> TestHTTPClient { TestHTTPClient(port: server.port) }
    }

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) } }

    static func sum(_ bytes: [UInt8]) -> String { String(bytes.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }) }

    /// Sends a head and as much of `body` as the server takes (it may close early after answering 413),
    /// then reads the answer.
    static func post(_ client: TestHTTPClient, _ target: String, body: [UInt8]) throws -> TestHTTPClient.Response {
        let head = "POST \(target) HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.count)\r\n\r\n"
        try client.send(raw: Array(head.utf8))
        try? client.send(raw: body)
        return try client.readResponse()
    }

    static func chunked(_ client: TestHTTPClient, _ target: String, body: [UInt8]) throws -> TestHTTPClient.Response {
        var raw = Array("POST \(target) HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < body.count {
            let end = min(offset + 65_536, body.count)
            raw += Array("\(String(end - offset, radix: 16))\r\n".utf8) + body[offset..<end] + [13, 10]
            offset = end
        }
        raw += Array("0\r\n\r\n".utf8)
        try client.send(raw: raw)
        return try client.readResponse()
    }

    @Test func normalRouteAnswers413JSONForOneMiBPlusOne() throws {
        let fixture = try Fixture()
        let response = try Self.post(fixture.client(), "/echo", body: Self.bytes((1 << 20) + 1))
        #expect(response.status == 413)
        #expect(response.header("content-type")?.hasPrefix("application/json") == true)
        let errors = (response.json as? [String: Any])?["errors"] as? [String: [String]]
        #expect(errors?["base"] == ["request body larger than 1048576 bytes"])
    }

    @Test func normalRouteTakesExactlyOneMiB() throws {
        let fixture = try Fixture()
        let body = Self.bytes(1 << 20)
        let response = try fixture.client().request("POST", "/echo", body: body)
        #expect(response.status == 200)
        #expect((response.json as? [String: Any])?["count"] as? Int == 1 << 20)
        #expect((response.json as? [String: Any])?["sum"] as? String == Self.sum(body))
    }

    @Test func uploadRouteTakesFiveMegabytesIntact() throws {
        let fixture = try Fixture()
        let body = Self.bytes(5_000_000)
        let client = fixture.client()
        let response = try client.request("POST", "/upload/a.bin?kind=video", body: body)
        #expect(response.status == 200, "\(response)")
        #expect((response.json as? [String: Any])?["count"] as? Int == 5_000_000)
        #expect((response.json as? [String: Any])?["sum"] as? String == Self.sum(body))
        // The connection stays usable, and the next request on it gets the default limit again.
        let next = try Self.post(client, "/echo", body: Self.bytes((1 << 20) + 1))
        #expect(next.status == 413)
    }

    @Test func uploadRouteRefusesMoreThanItsOwnLimitBeforeReadingTheBody() throws {
        let fixture = try Fixture()
        let client = fixture.client()
        // Only the head is sent: the answer must come from Content-Length alone.
        try client.send(raw: Array("POST /upload/a.bin HTTP/1.1\r\nHost: t\r\nContent-Length: 8388609\r\n\r\n".utf8))
        let response = try client.readResponse()
        #expect(response.status == 413)
        let errors = (response.json as? [String: Any])?["errors"] as? [String: [String]]
        #expect(errors?["base"] == ["request body larger than 8388608 bytes"])
    }

    @Test func chunkedBodiesAreHeldToTheRouteLimitWhileReceiving() throws {
        let fixture = try Fixture()
        let tooLarge = try Self.chunked(fixture.client(), "/echo", body: Self.bytes((1 << 20) + 1))
        #expect(tooLarge.status == 413)
        let body = Self.bytes(3 << 20)
        let upload = try Self.chunked(fixture.client(), "/upload/b.bin", body: body)
        #expect(upload.status == 200)
        #expect((upload.json as? [String: Any])?["sum"] as? String == Self.sum(body))
    }

    @Test func otherMethodsOnTheUploadPathKeepTheDefault() throws {
        let fixture = try Fixture()
        let client = fixture.client()
        try client.send(raw: Array("PUT /upload/a.bin HTTP/1.1\r\nHost: t\r\nContent-Length: 2097152\r\n\r\n".utf8))
        #expect(try client.readResponse().status == 413)
    }
}
