import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldTesting
import Testing

/// `herald serve` behind nginx configured with docs/operations.md's own block ("Behind a TLS reverse proxy"), its TLS,
/// port and upstream replaced for a loopback test: each client is limited by its own address, not the proxy's, and
/// nobody by the address they claim in `Forwarded` or `X-Forwarded-For`; the log records the real one. Clients
/// connect from addresses of their own in 127.0.0.0/8.
@Suite("Behind the documented reverse proxy", .tags(.endToEnd))
struct ReverseProxyTests {
    static let nginx = TestTool("nginx", package: "nginx-light")

    @Test(.bug(id: "issue-40-3", "behind the documented nginx, a client's own Forwarded header was believed"))
    func eachClientBehindTheProxyHasItsOwnLimitWhateverItClaims() throws {
        let herald = try ServeProcess(
            [
                "--trusted-proxies", "127.0.0.1", "--auth-rate-per-address", "5", "--auth-failures-per-account", "3",
                "--connections-per-address", "2",
            ], environment: ["HERALD_LOG_LEVEL": "info", "HERALD_LOG_FORMAT": "json"])
        let proxy = try DocumentedProxy(upstreamPort: herald.port)
        defer { proxy.stop() }
        let business = try herald.createBusiness()
        func app(from address: String) -> MobileTestClient {
            let http = TestHTTPClient(port: proxy.port)
            http.sourceAddress = address
            return MobileTestClient(http: http, business: business)
        }
        #expect(try app(from: "127.0.0.9").signUp(email: "real@example.com").status == 200)
        // Each call claims another address, in both headers, some of them the real user's.
        var claim = 0
        func login(_ caller: MobileTestClient, _ email: String) throws -> TestHTTPClient.Response {
            claim += 1
            let forged = claim.isMultiple(of: 2) ? "127.0.0.3" : "198.51.100.\(claim)"
            return try caller.call(
                "POST", "/api2/mobile/users/login",
                body: JSON.object([
                    ("client", .string(business.client)),
                    ("user", ["email": .string(email), "password": "wrong-password"]),
                ]).encodedString,
                headers: [("Forwarded", "for=\(forged)"), ("X-Forwarded-For", forged)])
        }

        // Guessing one account's password: after 3 failures the guesser waits (the failure delay), from its address.
        let guesser = app(from: "127.0.0.2")
        let guesses = try (0..<6).map { _ in try login(guesser, "real@example.com") }
        #expect(guesses.prefix(3).allSatisfy { $0.status == 422 }, "\(guesses.map(\.status))")
        #expect(guesses.suffix(3).allSatisfy { $0.status == 429 }, "\(guesses.map(\.status))")
        #expect(guesses[3].header("retry-after") == "5", "the failure delay's first wait")
        // Trying many accounts: past 5 a minute, refused (the per-address limit).
        let sprayer = app(from: "127.0.0.4")
        let sprayed = try (0..<8).map { try login(sprayer, "user\($0)@example.com").status }
        #expect(sprayed.prefix(5).allSatisfy { $0 == 422 } && sprayed.suffix(3).allSatisfy { $0 == 429 }, "\(sprayed)")
        // The real user, whose address they claimed, and everyone else, through the same proxy: served.
        #expect(try app(from: "127.0.0.3").logIn(email: "real@example.com").status == 200)
        for index in 10..<20 {
            let response = try app(from: "127.0.0.\(index)").logIn(email: "real@example.com")
            #expect(response.status == 200, "\(index): \(response)")
        }
        // The log names each caller by its real address, never by one it claimed.
        var logged: [String: Set<String>] = [:]
        #expect(
            Poll.until {
                logged = Self.loggedAddresses(herald.log)
                return logged["/api2/mobile/users/login"]?.count == 13
            }, "\(logged)")
        #expect(
            logged["/api2/mobile/users/login"]
                == Set(["127.0.0.2", "127.0.0.3", "127.0.0.4"] + (10..<20).map { "127.0.0.\($0)" }),
            "\(logged)")
        #expect(logged["/api2/mobile/users"] == ["127.0.0.9"], "\(logged)")
    }

    /// The addresses (`remote`) of the access log's requests, by path, from `herald serve`'s JSON log.
    static func loggedAddresses(_ log: String) -> [String: Set<String>] {
        var addresses: [String: Set<String>] = [:]
        for line in log.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["message"] as? String == "request", let path = object["http.path"] as? String,
                let remote = object["remote"] as? String
            else { continue }
            addresses[path, default: []].insert(remote)
        }
        return addresses
    }
}

/// nginx running the server block of docs/operations.md.
struct DocumentedProxy {
    let port: Int
    private let process: ChildProcess
    private let directory: String

    init(upstreamPort: Int) throws {
        let nginx = try ReverseProxyTests.nginx.require()
        directory = NSTemporaryDirectory() + "herald-proxy-" + UUIDString.random()
        try FileManager.default.createDirectory(atPath: "\(directory)/tmp", withIntermediateDirectories: true)
        port = try Self.freePort()
        let block = try Self.documentedBlock()
            .replacingOccurrences(of: "listen 443 ssl http2;", with: "listen 127.0.0.1:\(port);")
            .replacingOccurrences(
                of: "proxy_pass http://127.0.0.1:8080;", with: "proxy_pass http://127.0.0.1:\(upstreamPort);"
            )
            .split(separator: "\n").filter { !$0.contains("ssl_certificate") }.joined(separator: "\n")
        try #require(block.contains("listen 127.0.0.1:\(port);") && block.contains(":\(upstreamPort);"))
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log stderr warn;
            pid \(directory)/nginx.pid;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory)/tmp;
                proxy_temp_path \(directory)/tmp;
                fastcgi_temp_path \(directory)/tmp;
                uwsgi_temp_path \(directory)/tmp;
                scgi_temp_path \(directory)/tmp;
            \(block)
            }
            """
        try configuration.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(nginx, ["-p", directory, "-c", "\(directory)/nginx.conf", "-e", "stderr"])
        let port = port
        let process = process
        guard Poll.until(timeout: .seconds(10), { !process.isRunning || Self.accepts(port) }), process.isRunning else {
            Self.kill(process)
            throw TestHTTPClient.Failure(description: "nginx did not start on port \(port)")
        }
    }

    /// Kills nginx (SIGKILL: it has nothing to keep).
    func stop() {
        Self.kill(process)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func kill(_ process: ChildProcess) {
        process.signal(SIGKILL)
        process.wait()
    }

    /// The `nginx` code block of docs/operations.md's section on the reverse proxy.
    static func documentedBlock() throws -> String {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        guard let section = text.range(of: "## Behind a TLS reverse proxy"),
            let start = text.range(of: "```nginx\n", range: section.upperBound..<text.endIndex),
            let end = text.range(of: "```", range: start.upperBound..<text.endIndex)
        else { throw TestHTTPClient.Failure(description: "docs/operations.md has no nginx block") }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
            }
        }
        guard bound else { throw TestHTTPClient.Failure(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on `port`.
    static func accepts(_ port: Int) -> Bool {
        (try? TestHTTPClient(port: port).request("GET", "/healthz").status) != nil
    }
}
