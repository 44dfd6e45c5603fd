import Foundation
import HeraldHTTPServer
import HeraldObservability
import HeraldTesting
import Testing

/// `HTTPResponse.Body.file`: streamed from disk by the server, whole or a slice, with HEAD answered without a body.
@Suite("HTTP server file responses")
struct FileResponseTests {
    final class Fixture {
        let directory: TemporaryDirectory
        let server: HTTPServer
        let content: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 8) }

        init() throws {
            directory = try TemporaryDirectory()
            let path = directory.path + "/blob.bin"
            try Data(content).write(to: URL(fileURLWithPath: path))
            let size = Int64(content.count)
            var router = Router()
            router.get("/whole") { _ in HTTPResponse(body: .file(path: path, offset: 0, length: size)) }
            router.get("/slice/{offset}/{length}") { request in
                HTTPResponse(
                    status: .partialContent,
                    body: .file(
                        path: path, offset: Int64(request.parameter("offset")!)!,
                        length: Int64(request.parameter("length")!)!))
            }
            router.get("/missing") { _ in HTTPResponse(body: .file(path: path + ".gone", offset: 0, length: 1)) }
            let logger = Logger(label: "test", level: .critical)
            server = HTTPServer(
                configuration: .init(host: "127.0.0.1", port: 0),
                responder: Application(router: router, middleware: [ErrorMiddleware(logger: logger)]), logger: logger)
            try server.start()
        }

        deinit { server.shutdown(gracePeriod: .seconds(1)) }
    }

    @Test func wholeFileAndSlicesOnOneConnection() throws {
        let fixture = try Fixture()
        let client = TestHTTPClient(port: fixture.server.port)
        let whole = try client.request("GET", "/whole")
        #expect(whole.status == 200)
        #expect(whole.header("content-length") == "300000")
        #expect(whole.body == fixture.content)
        let slice = try client.request("GET", "/slice/1000/65536")
        #expect(slice.status == 206)
        #expect(slice.body == Array(fixture.content[1000..<66536]))
        let tail = try client.request("GET", "/slice/299999/1")
        #expect(tail.body == [fixture.content[299_999]])
    }

    @Test func headSendsTheLengthButNoBody() throws {
        let fixture = try Fixture()
        let client = TestHTTPClient(port: fixture.server.port)
        let head = try client.request("HEAD", "/whole")
        #expect(head.status == 200)
        #expect(head.header("content-length") == "300000")
        // Had a body followed the HEAD answer, this response would be read from it.
        let next = try client.request("GET", "/slice/0/10")
        #expect(next.status == 206)
        #expect(next.body == Array(fixture.content[0..<10]))
    }

    @Test func aMissingFileIsA500NotACrash() throws {
        let fixture = try Fixture()
        let response = try TestHTTPClient(port: fixture.server.port).request("GET", "/missing")
        #expect(response.status == 500)
    }
}
