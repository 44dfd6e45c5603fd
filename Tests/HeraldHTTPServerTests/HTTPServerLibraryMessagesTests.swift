import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// libmicrohttpd's own messages go through the server's logger (JSON under `--log-format json`), at most one a
/// second.
@Suite("HTTP server: libmicrohttpd's messages")
struct HTTPServerLibraryMessagesTests {
    @Test(.bug(id: "issue-35-14", "libmicrohttpd's messages went raw to standard error under --log-format json"))
    func aLibraryMessageIsAJSONLogLine() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(
            label: "herald.http", level: .info, format: .json,
            sink: LogSink { line in lines.withLock { $0.append(line) } })
        var router = Router()
        router.get("/x") { _ in .json(["ok": true]) }
        let server = HTTPServer(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0),
            responder: Application(router: router, middleware: []), logger: logger)
        try server.start()
        defer { server.shutdown(gracePeriod: .zero) }
        // A Content-Length libmicrohttpd cannot parse: it answers 400 itself and says so in its log.
        for _ in 0..<3 {
            let client = TestHTTPClient(port: server.port)
            try client.send(raw: Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n".utf8))
            _ = try? client.readResponse()
        }
        #expect(Poll.until { lines.withLock { !$0.isEmpty } }, "nothing logged")
        let logged = lines.withLock { $0 }
        let line = try #require(logged.first)
        let first = try JSON.parse(Array(line.utf8))
        #expect(first["message"] == "libmicrohttpd", "\(line)")
        #expect(first["mhd.message"]?.stringValue?.contains("Content-Length") == true, "\(line)")
        #expect(logged.count == 1, "at most one a second: \(logged)")
    }
}
