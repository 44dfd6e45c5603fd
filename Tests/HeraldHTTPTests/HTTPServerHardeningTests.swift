import Foundation
import HeraldHTTP
import HeraldTesting
import Testing

/// What one client cannot do to the others: hold a connection with a trickled head, take every connection from
/// one address, or leave no room for the health check; and the head edges (control bytes, absurd lengths).
@Suite("HTTP server hardening")
struct HTTPServerHardeningTests {
    typealias TestServer = HTTPServerTests.TestServer

    /// A client connecting from `address` (any of 127.0.0.0/8 reaches the loopback server).
    static func client(_ server: TestServer, from address: String, timeout: Double = 5) -> TestHTTPClient {
        let client = server.client(timeout: timeout)
        client.sourceAddress = address
        return client
    }

    /// Opens a connection from `address` that sends half a request head and no more.
    static func halfOpen(_ server: TestServer, from address: String) throws -> TestHTTPClient {
        let client = client(server, from: address)
        try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: localhost\r\nX-Slow: a".utf8))
        return client
    }

    @Test func aHeadTrickledFasterThanTheIdleTimeoutIsCutAtTheHeadDeadline() throws {
        // Never idle for the 3 s idle timeout: only a deadline for the whole head closes it.
        let server = try TestServer {
            $0.connectionTimeout = .seconds(3)
            $0.headTimeout = .seconds(1)
        }
        let client = server.client(timeout: 5)
        try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: localhost\r\n".utf8))
        let started = ContinuousClock.now
        var closedAfter: Duration?
        for index in 0..<40 {
            Thread.sleep(forTimeInterval: 0.2)
            do {
                try client.send(raw: Array("X-\(index): y\r\n".utf8))
            } catch {
                closedAfter = ContinuousClock.now - started
                break
            }
        }
        if closedAfter == nil {
            // The writes may still land in the socket buffer after the server shut it: a read says.
            #expect(throws: TestHTTPClient.Failure.self) { try client.readResponse() }
            closedAfter = ContinuousClock.now - started
        }
        let elapsed = try #require(closedAfter)
        #expect(elapsed < .seconds(4), "closed after \(elapsed), not within the head deadline")
        #expect(try server.get("/x").status == 200)
    }

    @Test func aKeptAliveConnectionGetsAFreshHeadDeadlineForEachRequest() throws {
        let server = try TestServer { $0.headTimeout = .seconds(1) }
        let client = server.client()
        for _ in 0..<3 {
            Thread.sleep(forTimeInterval: 0.6)
            try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test func oneAddressCannotTakeEveryConnection() throws {
        let server = try TestServer { $0.perAddressConnectionLimit = 5 }
        let held = try (0..<5).map { _ in try Self.halfOpen(server, from: "127.0.0.2") }
        Thread.sleep(forTimeInterval: 0.2)
        let sixth = Self.client(server, from: "127.0.0.2")
        let refused = try sixth.request("GET", "/x")
        #expect(refused.status == 503, "\(refused)")
        #expect(refused.header("retry-after") == "1")
        #expect(refused.errorFields?["base"]?.first?.contains("too many connections") == true, "\(refused)")
        // Another address is served as usual.
        #expect(try Self.client(server, from: "127.0.0.1").request("GET", "/x").status == 200)
        // Once one closes, the address has a place again.
        held[0].close()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try Self.client(server, from: "127.0.0.2").request("GET", "/x").status == 200)
        _ = held
    }

    @Test func whenEveryPlaceIsTakenTheHealthCheckStillAnswersAndTheRestIs503() throws {
        let server = try TestServer {
            $0.connectionLimit = 20
            $0.reservedConnections = 4
            $0.perAddressConnectionLimit = 2
        }
        // 20 slow-header clients from 10 addresses, each within its address's limit, fill every ordinary place.
        let held = try (0..<20).map { index in try Self.halfOpen(server, from: "127.0.1.\(index / 2 + 1)") }
        Thread.sleep(forTimeInterval: 0.3)
        let started = ContinuousClock.now
        let health = try Self.client(server, from: "127.0.0.1").request("GET", "/healthz")
        #expect(health.status == 200, "\(health)")
        #expect(ContinuousClock.now - started < .milliseconds(500))
        let busy = try Self.client(server, from: "127.0.0.1").request("GET", "/x")
        #expect(busy.status == 503, "\(busy)")
        #expect(busy.header("retry-after") == "1")
        _ = held
    }

    @Test func aSlowHeaderFloodLeavesOtherClientsServed() throws {
        // The probe's attack, scaled down: more slow-header connections than the server holds, from many addresses.
        let server = try TestServer {
            $0.connectionLimit = 100
            $0.reservedConnections = 8
            $0.perAddressConnectionLimit = 10
            $0.headTimeout = .seconds(2)
        }
        var held: [TestHTTPClient] = []
        for index in 0..<150 {
            if let client = try? Self.halfOpen(server, from: "127.0.2.\(index / 10 + 1)") { held.append(client) }
        }
        Thread.sleep(forTimeInterval: 0.3)
        // The health check is answered at once, from the reserve.
        #expect(try Self.client(server, from: "127.0.0.1").request("GET", "/healthz").status == 200)
        // And within the head deadline the held places are free again for everyone.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try Self.client(server, from: "127.0.0.1").request("GET", "/x").status == 200)
        // Some of them at least were closed by the head deadline (how many depends on how loaded the machine is).
        #expect(server.server.connectionsClosedForSlowHeads > 0)
        _ = held
    }

    // Not NUL: libmicrohttpd 0.9.75 hands the value over cut at it, so the bytes after it cannot be seen here
    // (left open: see bench/RESULTS.md).
    @Test(arguments: ["Bearer token\u{1}junk", "a\u{1B}b", "tab\tis fine", "del\u{7F}"])
    func controlBytesInAHeaderValueAre400(_ value: String) throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: localhost\r\nAuthorization: \(value)\r\n\r\n".utf8))
        let response = try client.readResponse()
        if value.hasPrefix("tab") {
            #expect(response.status == 200)
        } else {
            #expect(response.status == 400, "\(response)")
            #expect(response.errorFields?["base"]?.first?.contains("control character") == true, "\(response)")
        }
    }

    @Test(arguments: ["9223372036854775808", "18446744073709551615", "9223372036854775807"])
    func aContentLengthPastIntIs413(_ length: String) throws {
        let server = try TestServer()
        let client = server.client()
        try client.send(raw: Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(length)\r\n\r\n".utf8))
        let response = try client.readResponse(method: "POST")
        #expect(response.status == 413, "\(response)")
        #expect(try server.get("/x").status == 200)
    }
}
