import Foundation
import HeraldTesting
import Testing

/// The API tests' in-process transport: requests handed to the HTTP server's own code with no socket, answered as
/// over a connection.
@Suite("In-process API calls")
struct InProcessTests {
    @Test func anInProcessHeraldAnswersWithoutListening() throws {
        let herald = try LiveHerald()
        let business = try herald.createBusiness()
        let app = herald.mobileClient(for: business)
        #expect(try app.signUp(email: "ann@example.com").status == 200)
        #expect(try app.notifications().status == 200)
        #expect(!herald.isListening && herald.application.server.openConnections == 0)
    }

    @Test func answersCarryWhatTheServerAdds() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let mine = try client.request("GET", "/healthz", headers: [("X-Request-Id", "trace-42")])
        #expect(mine.status == 200 && mine.header("x-request-id") == "trace-42")
        #expect(mine.header("content-length") == String(mine.body.count) && mine.header("date") != nil)
        let made = try client.request("GET", "/healthz")
        #expect(made.header("x-request-id")?.isEmpty == false && made.header("x-request-id") != "trace-42")
        let head = try client.request("HEAD", "/healthz")
        #expect(
            head.status == 200 && head.body.isEmpty && head.header("content-length") == mine.header("content-length"))
        #expect(!herald.isListening)
    }

    @Test func theServersLimitsApplyInProcess() throws {
        let herald = try LiveHerald()
        let client = herald.client()
        let admin = [("Authorization", "Bearer \(herald.adminToken)")]
        let large = try client.request(
            "POST", "/api/admin/businesses", headers: admin, body: [UInt8](repeating: 0x20, count: (1 << 20) + 1))
        #expect(large.status == 413, "\(large)")
        let many = (0..<101).map { ("X-Field-\($0)", "v") }
        #expect(try client.request("GET", "/healthz", headers: many).status == 431)
        let hidden = try client.request("GET", "/healthz", headers: [("X-Thing", "a\u{0}b")])
        #expect(hidden.status == 400 && hidden.header("connection") == "close", "\(hidden)")
        let framing = try client.request(
            "POST", "/api/admin/businesses", headers: admin + [("Transfer-Encoding", "gzip")], body: Array("{}".utf8))
        #expect(framing.status == 400 || framing.status == 501, "\(framing)")
        #expect(!herald.isListening)
    }

    /// The same requests over a socket and in process get the same answers, but for what differs by nature (the
    /// request id made, the date, the connection).
    @Test(.tags(.endToEnd)) func inProcessAnswersAreTheSocketsAnswers() throws {
        let socket = try LiveHerald(transport: .socket)
        let inProcess = try LiveHerald()
        let requests: [(String, String, [(String, String)], [UInt8])] = [
            ("GET", "/healthz", [("X-Request-Id", "same")], []), ("HEAD", "/healthz", [("X-Request-Id", "same")], []),
            ("GET", "/nowhere", [("X-Request-Id", "same")], []),
            ("DELETE", "/healthz", [("X-Request-Id", "same")], []),
            ("POST", "/api/admin/businesses", [("X-Request-Id", "same")], Array("{}".utf8)),
            ("GET", "/healthz", [("X-Request-Id", "same"), ("X-Thing", "a\u{1}b")], []),
            ("POST", "/api/admin/businesses", [], [UInt8](repeating: 0x20, count: (1 << 20) + 1)),
        ]
        for (method, target, headers, body) in requests {
            let overSocket = try socket.client().request(method, target, headers: headers, body: body)
            let direct = try inProcess.client().request(method, target, headers: headers, body: body)
            #expect(overSocket.status == direct.status, "\(method) \(target): \(overSocket) vs \(direct)")
            #expect(overSocket.body == direct.body, "\(method) \(target)")
            func names(_ response: TestHTTPClient.Response) -> Set<String> {
                Set(response.headers.map(\.name)).subtracting(["connection", "keep-alive"])
            }
            #expect(names(overSocket) == names(direct), "\(method) \(target)")
            if headers.contains(where: { $0.0 == "X-Request-Id" }) {
                #expect(overSocket.header("x-request-id") == direct.header("x-request-id"))
            }
        }
        #expect(socket.isListening && !inProcess.isListening)
    }

    /// A test that asks an in-process Herald for its port gets one, served, and closed when Herald stops.
    @Test(.tags(.endToEnd)) func askingForThePortBindsOne() throws {
        let herald = try LiveHerald()
        let before = LiveHerald.portsBound
        #expect(!herald.isListening)
        let port = herald.port
        #expect(port > 0 && herald.isListening && herald.port == port && LiveHerald.portsBound > before)
        #expect(try TestHTTPClient(port: port).request("GET", "/healthz").status == 200)
        herald.stop()
        #expect(throws: TestHTTPClient.Failure.self) { try TestHTTPClient(port: port).request("GET", "/healthz") }
    }
}
