import Foundation
import HeraldHTTP
import HeraldModel
import HeraldTesting
import Testing

/// Herald behind nginx configured with docs/operations.md's own block ("Behind a TLS reverse proxy"), its TLS, port
/// and upstream replaced for a loopback test: each client is limited by its own address, not the proxy's, and
/// nobody is limited by the address they claim. Clients connect from addresses of their own in 127.0.0.0/8.
@Suite("Behind the documented reverse proxy")
struct ReverseProxyTests {
    static let nginx = TestTool("nginx", package: "nginx-light")

    @Test func eachClientBehindTheProxyHasItsOwnLimit() throws {
        let herald = try LiveHerald {
            $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1")
            $0.authPerAddressPerMinute = 5
            $0.connectionsPerAddress = 2
        }
        let proxy = try DocumentedProxy(upstreamPort: herald.port)
        defer { proxy.stop() }
        let business = try herald.createBusiness()
        func app(from address: String) -> MobileTestClient {
            let http = TestHTTPClient(port: proxy.port)
            http.sourceAddress = address
            return herald.mobileClient(for: business, http: http)
        }
        #expect(try app(from: "127.0.0.9").signUp(email: "real@example.com").status == 200)

        // One caller, claiming to be the real user's address, spends only its own budget.
        let attacker = app(from: "127.0.0.2")
        let statuses = try (0..<8).map { _ in
            try attacker.call(
                "POST", "/api2/mobile/users/login",
                body: JSON.object([
                    ("client", .string(business.client)),
                    ("user", ["email": "real@example.com", "password": "wrong-password"]),
                ]).encodedString, headers: [("X-Forwarded-For", "127.0.0.3")]
            ).status
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 || $0 == 422 }, "\(statuses)")
        #expect(statuses.suffix(3).allSatisfy { $0 == 429 }, "\(statuses)")
        // The real user, and everyone else, through the same proxy: served.
        #expect(try app(from: "127.0.0.3").logIn(email: "real@example.com").status == 200)
        for index in 10..<30 {
            let response = try app(from: "127.0.0.\(index)").logIn(email: "real@example.com")
            #expect(response.status == 200, "\(index): \(response)")
        }
    }
}

/// nginx running the server block of docs/operations.md.
struct DocumentedProxy {
    let port: Int
    private let process: Process
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
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", directory, "-c", "\(directory)/nginx.conf", "-e", "stderr"]
        try process.run()
        let port = port
        let process = process
        guard Poll.until(timeout: .seconds(10), { !process.isRunning || Self.accepts(port) }), process.isRunning else {
            Self.kill(process)
            throw TestHTTPClient.Failure(description: "nginx did not start on port \(port)")
        }
    }

    /// Kills nginx with SIGKILL: a test process's children may inherit a mask that blocks SIGTERM (see the HTTP
    /// tests' `PeerProcess`), and `terminate()` would then leave `waitUntilExit()` waiting forever.
    func stop() {
        Self.kill(process)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
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
