import Foundation
import HeraldHTTPClient
import HeraldTesting
import Testing

/// Live tests of HTTP2Client against local peers: nginx (HTTP/2 over TLS, test CAs made per test) and a
/// Python plain HTTP/1.1 server.
@Suite("HTTP2Client against local servers", .serialized)
struct HTTP2ClientTests {
    // MARK: TLS and trust

    @Test("HTTP/2 over TLS verifies against the extra CA and the system bundle at once")
    func trustsExtraAndSystemCAs() async throws {
        let directory = try TemporaryDirectory()
        let system = try TestPKI(in: directory.path, name: "system")
        let extra = try TestPKI(in: directory.path, name: "extra")
        let server = try NginxServer(pkis: [system, extra], directory: directory)
        defer { server.stop() }
        // The "system" bundle here is a file of the test's own, so both halves of the combined trust are
        // observable; the next test covers the real system bundle.
        let client = try HTTP2Client(
            configuration: .init(extraCAFile: extra.caFile, systemCAFile: system.caFile))
        defer { client.shutdown() }

        for port in server.ports {
            let response = try await client.execute(HTTPClientRequest(url: "https://localhost:\(port)/"))
            #expect(response.status == 200)
            #expect(response.header("x-protocol") == "HTTP/2.0")
        }
    }

    @Test("the extra CA is trusted alongside the real system bundle")
    func trustsExtraCAWithDefaultSystemBundle() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "extra")
        let server = try NginxServer(pkis: [pki], directory: directory)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: pki.caFile))
        defer { client.shutdown() }

        let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        #expect(response.status == 200)
    }

    @Test("without the extra CA the server's certificate fails with .tls")
    func untrustedCertificateFailsWithTLS() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let unrelated = try TestPKI(in: directory.path, name: "unrelated")
        let server = try NginxServer(pkis: [pki], directory: directory)
        defer { server.stop() }

        for configuration in [HTTP2Client.Configuration(), .init(extraCAFile: unrelated.caFile)] {
            let client = try HTTP2Client(configuration: configuration)
            defer { client.shutdown() }
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(HTTPClientRequest(url: "https://localhost:\(server.port)/"))
            }
            #expect(error?.code == .tls, "\(String(describing: error))")
        }
    }

    @Test("an unreadable extra CA file fails at init")
    func unreadableExtraCAFileThrows() {
        #expect(throws: HTTPClientError.self) {
            _ = try HTTP2Client(configuration: .init(extraCAFile: "/nonexistent/herald-ca.pem"))
        }
    }

    // MARK: Multiplexing and reuse

    @Test("with two event loops, requests go to both, each on its own connection, and shutdown stops both")
    func twoEventLoopsShareTheRequests() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let server = try NginxServer(pkis: [pki], directory: directory)
        defer { server.stop() }
        var configuration = HTTP2Client.Configuration(extraCAFile: pki.caFile, maxConnectionsPerHost: 1)
        configuration.eventLoops = 2
        let client = try HTTP2Client(configuration: configuration)

        let results = Collector<Result<HTTPClientResponse, HTTPClientError>>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<200 {
                let request = HTTPClientRequest(
                    method: "POST", url: "https://127.0.0.1:\(server.port)/3/device/\(index)")
                client.execute(request) { result in
                    if results.append(result) == 200 { done.resume() }
                }
            }
        }
        let responses = results.values.compactMap { try? $0.get() }
        #expect(responses.count == 200)
        // One connection per loop, each carrying half the requests.
        let connections = Dictionary(grouping: responses.compactMap { $0.header("x-connection") }, by: { $0 })
        #expect(connections.count == 2, "nginx saw connections \(connections.keys.sorted())")
        #expect(connections.values.allSatisfy { $0.count == 100 })
        #expect(client.connectionsOpened == 2)

        client.shutdown()
        let after = try? await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
        #expect(after == nil, "a shut-down client refuses requests")
    }

    @Test("500 concurrent requests share one or two HTTP/2 connections")
    func concurrentRequestsMultiplexOnFewConnections() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let server = try NginxServer(pkis: [pki], directory: directory)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: pki.caFile, maxConnectionsPerHost: 4))
        defer { client.shutdown() }

        // Issue all 500 before any completes (the completion-handler API queues without waiting).
        let results = Collector<Result<HTTPClientResponse, HTTPClientError>>()
        let body = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<500 {
                let request = HTTPClientRequest(
                    method: "POST", url: "https://127.0.0.1:\(server.port)/3/device/\(index)",
                    headers: [("apns-topic", "com.example.app")], body: body)
                client.execute(request) { result in
                    if results.append(result) == 500 { done.resume() }
                }
            }
        }

        let responses = results.values.compactMap { try? $0.get() }
        #expect(responses.count == 500)
        #expect(responses.allSatisfy { $0.status == 200 && $0.header("x-protocol") == "HTTP/2.0" })
        let connections = Set(responses.compactMap { $0.header("x-connection") })
        #expect((1...2).contains(connections.count), "nginx saw connections \(connections.sorted())")
        #expect((1...2).contains(client.connectionsOpened), "opened \(client.connectionsOpened)")

        // Later requests reuse the open connection.
        let before = client.connectionsOpened
        for _ in 0..<5 {
            let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            #expect(response.status == 200)
        }
        #expect(client.connectionsOpened == before)
    }

    @Test("connections the server retires with GOAWAY are replaced without failing requests")
    func goawayIsTransparent() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let server = try NginxServer(pkis: [pki], directory: directory, keepaliveRequests: 50)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: pki.caFile))
        defer { client.shutdown() }

        let results = Collector<Result<HTTPClientResponse, HTTPClientError>>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for _ in 0..<500 {
                let request = HTTPClientRequest(method: "POST", url: "https://127.0.0.1:\(server.port)/", body: [0x31])
                client.execute(request) {
                    if results.append($0) == 500 { done.resume() }
                }
            }
        }
        let failures = results.values.compactMap { result -> HTTPClientError? in
            guard case .failure(let error) = result else { return nil }
            return error
        }
        // Streams above each GOAWAY's last stream id are sent again on a new connection: none fails.
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3))")
        #expect(client.connectionsOpened >= 10)
        #expect(client.statistics.goAwaysReceived >= 9)
    }

    // MARK: Responses

    @Test("status, lowercased headers and body come back")
    func responseHeadersAndBody() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let server = try NginxServer(pkis: [pki], directory: directory)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: pki.caFile))
        defer { client.shutdown() }

        let ok = try await client.execute(
            HTTPClientRequest(method: "POST", url: "https://localhost:\(server.port)/3/device/abc", body: [0x7B, 0x7D]))
        #expect(ok.status == 200)
        #expect(ok.header("apns-id") == "7C7B3A9E-2D1F-4F6B-9A55-6D2C1E0B8F11")
        #expect(ok.header("APNS-ID") == "7C7B3A9E-2D1F-4F6B-9A55-6D2C1E0B8F11")
        #expect(ok.header("content-type") == "application/json")
        #expect(ok.headers.allSatisfy { $0.name == $0.name.lowercased() })
        #expect(String(decoding: ok.body, as: UTF8.self) == #"{"ok":true}"#)

        let bad = try await client.execute(
            HTTPClientRequest(method: "POST", url: "https://localhost:\(server.port)/bad"))
        #expect(bad.status == 400)
        #expect(String(decoding: bad.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
    }

    @Test("plain http:// works over HTTP/1.1: body uploaded, no Expect, no default content-type, names lowercased")
    func plainHTTPUploadAndHeaders() async throws {
        let server = try PlainHTTPServer(directory: try TemporaryDirectory())
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }

        let json = (0..<6000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let echoed = try await client.execute(
            HTTPClientRequest(
                method: "POST", url: "http://127.0.0.1:\(server.port)/echo", headers: [("X-Custom", "1")],
                body: json))
        #expect(echoed.status == 200)
        #expect(echoed.body == json)
        #expect(echoed.header("x-echo-expect") == "-")
        #expect(echoed.header("x-echo-content-type") == "-")
        #expect(echoed.header("x-echo-content-length") == "6000")
        #expect(echoed.header("x-echo-x-custom") == "1")
        #expect(echoed.header("mixed-case") == "Value")
        #expect(echoed.headers.contains { $0.name == "mixed-case" })

        let form = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=x.y.z".utf8)
        let token = try await client.execute(
            HTTPClientRequest(
                method: "POST", url: "http://127.0.0.1:\(server.port)/echo",
                headers: [("content-type", "application/x-www-form-urlencoded")], body: form))
        #expect(token.body == form)
        #expect(token.header("x-echo-content-type") == "application/x-www-form-urlencoded")

        for method in ["GET", "PUT", "DELETE"] {
            let response = try await client.execute(
                HTTPClientRequest(method: method, url: "http://127.0.0.1:\(server.port)/echo"))
            #expect(response.status == 200, "\(method)")
        }
    }

    @Test("a TLS server without HTTP/2 (ALPN http/1.1) is spoken to in HTTP/1.1, keep-alive, several at once")
    func http11OverTLS() async throws {
        let directory = try TemporaryDirectory()
        let pki = try TestPKI(in: directory.path, name: "server")
        let server = try NginxServer(pkis: [pki], directory: directory, http2: false)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: .init(extraCAFile: pki.caFile, maxConnectionsPerHost: 2))
        defer { client.shutdown() }

        let results = Collector<Result<HTTPClientResponse, HTTPClientError>>()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<20 {
                let request = HTTPClientRequest(
                    method: "POST", url: "https://localhost:\(server.port)/3/device/\(index)", body: [0x7B, 0x7D])
                client.execute(request) { result in
                    if results.append(result) == 20 { done.resume() }
                }
            }
        }
        let responses = results.values.compactMap { try? $0.get() }
        #expect(responses.count == 20)
        #expect(responses.allSatisfy { $0.status == 200 && $0.header("x-protocol") == "HTTP/1.1" })
        #expect(responses.allSatisfy { String(decoding: $0.body, as: UTF8.self) == #"{"ok":true}"# })
        // Two connections opened for 20 requests at once, and kept alive: every answer came on one of them (which,
        // is up to timing: on a busy machine the first may have served all 20 before the second's handshake ended).
        #expect(client.connectionsOpened == 2)
        #expect(
            (1...2).contains(Set(responses.compactMap { $0.header("x-connection") }).count), "kept-alive connections")
    }

    // MARK: Failures

    @Test("a request slower than its timeout fails with .timeout")
    func timeout() async throws {
        let server = try PlainHTTPServer(directory: try TemporaryDirectory())
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }

        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/sleep?ms=5000", timeout: .milliseconds(300)))
        }
        #expect(error?.code == .timeout, "\(String(describing: error))")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(3), "\(elapsed)")
    }

    @Test("a refused connection fails with .connectionFailed")
    func connectionRefused() async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let port = try freePort()
        for scheme in ["http", "https"] {
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(HTTPClientRequest(url: "\(scheme)://127.0.0.1:\(port)/"))
            }
            #expect(error?.code == .connectionFailed, "\(String(describing: error))")
        }
    }

    @Test("invalid requests fail at once with .invalidRequest, without echoing header values")
    func invalidRequests() async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let secret = "bearer secret-token"
        let requests = [
            HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("authorization", secret + "\r\nx-injected: 1")]),
            HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("bad name", "v")]),
            HTTPClientRequest(method: "GE T", url: "http://127.0.0.1:1/"),
            HTTPClientRequest(url: "ftp://127.0.0.1:1/file"),
            HTTPClientRequest(url: "not a url"),
        ]
        for request in requests {
            let error = await #expect(throws: HTTPClientError.self) { try await client.execute(request) }
            #expect(error?.code == .invalidRequest, "\(String(describing: error))")
            #expect(error?.description.contains("secret") == false)
        }
    }

    @Test("shutdown fails in-flight and queued requests with .cancelled and returns")
    func shutdownCancelsInFlight() async throws {
        let server = try PlainHTTPServer(directory: try TemporaryDirectory())
        defer { server.stop() }
        // HTTP/1.1, two connections: two requests in flight, the rest waiting in the pool for a connection.
        let client = try HTTP2Client(configuration: .init(maxConnectionsPerHost: 2))
        let results = Collector<HTTPClientError.Code?>()
        for _ in 0..<10 {
            client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/sleep?ms=10000")) { result in
                results.append(result.failureCode)
            }
        }
        #expect(await Poll.eventually { (try? server.sleepers()) == 2 }, "one request in flight on each connection")
        #expect(results.values.isEmpty)

        let started = ContinuousClock.now
        client.shutdown()
        #expect(ContinuousClock.now - started < .seconds(2))
        let codes = results.values
        #expect(codes.count == 10)
        #expect(codes.allSatisfy { $0 == .cancelled }, "\(codes)")

        client.shutdown()  // idempotent
        let late = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/echo"))
        }
        #expect(late?.code == .cancelled)
    }

    @Test("cancelling the awaiting task cancels the request")
    func taskCancellation() async throws {
        let server = try PlainHTTPServer(directory: try TemporaryDirectory())
        defer { server.stop() }
        let client = try HTTP2Client()
        defer { client.shutdown() }

        let task = Task {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/sleep?ms=10000"))
        }
        #expect(await Poll.eventually { (try? server.sleepers()) == 1 }, "the request is in flight")
        let started = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(result.failureCode == .cancelled, "\(result)")

        // The client still works afterwards.
        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/echo"))
        #expect(response.status == 200)
    }

    @Test("more than maxPendingRequests fails with .overloaded")
    func overloaded() async throws {
        let client = try HTTP2Client(configuration: .init(maxPendingRequests: 0))
        defer { client.shutdown() }
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/"))
        }
        #expect(error?.code == .overloaded)
    }

    @Test("maxPendingRequests counts the whole client, whichever loop takes a request")
    func thePendingLimitSpansTheLoops() throws {
        // A server that accepts connections (the kernel's backlog) and never answers.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try #require(bind(listener, raw, length) == 0 && listen(listener, 16) == 0)
                try #require(getsockname(listener, raw, &length) == 0)
            }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        var configuration = HTTP2Client.Configuration(maxPendingRequests: 3)
        configuration.eventLoops = 2
        let client = try HTTP2Client(configuration: configuration)
        let codes = Collector<HTTPClientError.Code?>()
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: .seconds(30))
        for _ in 0..<4 {
            client.execute(request) { result in _ = codes.append(result.failureCode) }
        }
        // The fourth is refused at once (an odd limit over two loops: a per-loop budget refused the third); the
        // first three wait on the silent server until shutdown cancels them.
        #expect(codes.values == [.overloaded])
        client.shutdown()
        #expect(codes.values.sorted { "\($0!)" < "\($1!)" } == [.cancelled, .cancelled, .cancelled, .overloaded])
    }
}

extension Result {
    fileprivate var failureCode: HTTPClientError.Code? {
        guard case .failure(let error) = self else { return nil }
        return (error as? HTTPClientError)?.code
    }
}
