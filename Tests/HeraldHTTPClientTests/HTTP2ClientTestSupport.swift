import Foundation
import HeraldTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Peers for the HTTP2Client tests: a throwaway PKI made with the openssl CLI, nginx serving HTTP/2 over
/// TLS, and a Python plain HTTP/1.1 server that can sleep and echo. Each lives in its own temp directory. A test
/// whose peer is not installed fails saying so (`TestTool`).
enum TestPeers {
    static let nginx = TestTool("nginx", package: "nginx-light")
    static let openssl = TestTool("openssl", package: "openssl")
    static let python = TestTool("python3", package: "python3")
    static let nghttpd = TestTool("nghttpd", package: "nghttp2-server")
}

struct TestSupportError: Error, CustomStringConvertible {
    let description: String
}

/// A fresh temp directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "herald-h2client-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs a command to completion; throws with its output if it fails.
@discardableResult
func runCommand(_ executable: String, _ arguments: [String]) throws -> String {
    let process = try ChildProcess(executable, arguments, output: .pipe, errors: .output)
    let data = process.output!.readDataToEndOfFile()
    let status = process.wait()
    let text = String(decoding: data, as: UTF8.self)
    guard status == 0 else {
        throw TestSupportError(description: "\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
    }
    return text
}

/// A test CA and a server certificate it signed, for `localhost` and `127.0.0.1`.
struct TestPKI {
    let caFile: String
    let certificateFile: String
    let keyFile: String

    init(in directory: String, name: String) throws {
        let openssl = try TestPeers.openssl.require()
        let base = "\(directory)/\(name)"
        caFile = "\(base)-ca.pem"
        certificateFile = "\(base)-server.pem"
        keyFile = "\(base)-server.key"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try runCommand(
            openssl,
            ["req", "-x509"] + ec + [
                "-keyout", "\(base)-ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=Herald \(name) test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try runCommand(
            openssl, ["req"] + ec + ["-keyout", keyFile, "-out", "\(base)-server.csr", "-subj", "/CN=localhost"])
        let extensions = "\(base)-ext.cnf"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try runCommand(
            openssl,
            [
                "x509", "-req", "-in", "\(base)-server.csr", "-CA", caFile, "-CAkey", "\(base)-ca.key",
                "-CAcreateserial", "-out", certificateFile, "-days", "2", "-extfile", extensions,
            ])
    }
}

/// A port nothing listens on right now (bound to port 0, then released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestSupportError(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw TestSupportError(description: "bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func isListening(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A running peer process, stopped by `stop()`.
final class PeerProcess: Sendable {
    let process: ChildProcess
    let directory: TemporaryDirectory

    init(_ process: ChildProcess, directory: TemporaryDirectory) {
        self.process = process
        self.directory = directory
    }

    /// Kills the process (SIGKILL: a peer has nothing to keep) and removes its directory.
    func stop() {
        kill()
        directory.remove()
    }

    private func kill() {
        process.signal(SIGKILL)
        process.wait()
    }

    /// A peer listening on `count` ports from `freePort()`, started by `command` (its executable and arguments for
    /// those ports). Another process can take a port between `freePort()` and the peer's bind (CI once saw nghttpd
    /// never listen), so a peer that does not come up is killed and started again on fresh ports, up to `attempts`
    /// times.
    static func start(
        in directory: TemporaryDirectory, ports count: Int, attempts: Int = 3,
        _ command: ([Int]) throws -> (executable: String, arguments: [String])
    ) throws -> (peer: PeerProcess, ports: [Int]) {
        var failure: any Error = TestSupportError(description: "peer not started")
        for _ in 0..<attempts {
            let ports = try (0..<count).map { _ in try freePort() }
            let (executable, arguments) = try command(ports)
            let peer = PeerProcess(
                try ChildProcess(executable, arguments, output: .null, errors: .null), directory: directory)
            do {
                for port in ports { try peer.waitUntilListening(port) }
                return (peer, ports)
            } catch {
                peer.kill()
                failure = error
            }
        }
        throw failure
    }

    func waitUntilListening(_ port: Int) throws {
        if Poll.until(every: .milliseconds(25), { isListening(port) || !process.isRunning }), isListening(port) {
            return
        }
        throw TestSupportError(description: "peer did not start listening on port \(port)")
    }
}

/// nginx serving HTTP/2 over TLS on one port per certificate, every port with the same locations:
/// `/` answers 200 `{"ok":true}` with `apns-id`, `x-connection` (nginx's connection serial) and
/// `x-protocol`; `/bad` answers 400 `{"reason":"BadDeviceToken"}`.
struct NginxServer {
    let ports: [Int]
    let peer: PeerProcess

    var port: Int { ports[0] }

    /// `keepaliveRequests`: requests per connection before nginx sends GOAWAY. `http2: false` serves HTTP/1.1 only
    /// (ALPN `http/1.1`).
    init(pkis: [TestPKI], directory: TemporaryDirectory, keepaliveRequests: Int = 1_000_000, http2: Bool = true) throws
    {
        let nginx = try TestPeers.nginx.require()
        let dir = directory.path
        try FileManager.default.createDirectory(atPath: "\(dir)/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(dir)/logs", withIntermediateDirectories: true)
        (peer, ports) = try PeerProcess.start(in: directory, ports: pkis.count) { ports in
            try Self.configuration(dir, servers: zip(pkis, ports), keepaliveRequests: keepaliveRequests, http2: http2)
                .write(toFile: "\(dir)/nginx.conf", atomically: true, encoding: .utf8)
            return (nginx, ["-p", dir, "-c", "\(dir)/nginx.conf", "-e", "stderr"])
        }
    }

    func stop() { peer.stop() }

    private static func configuration(
        _ dir: String, servers pkisAndPorts: Zip2Sequence<[TestPKI], [Int]>, keepaliveRequests: Int, http2: Bool
    ) -> String {
        var servers = ""
        for (pki, port) in pkisAndPorts {
            servers += """
                    server {
                        listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");
                        ssl_certificate \(pki.certificateFile);
                        ssl_certificate_key \(pki.keyFile);
                        http2_max_concurrent_streams 1000;
                        keepalive_requests \(keepaliveRequests);
                        location / {
                            add_header apns-id "7C7B3A9E-2D1F-4F6B-9A55-6D2C1E0B8F11" always;
                            add_header x-connection $connection always;
                            add_header x-protocol $server_protocol always;
                            return 200 '{"ok":true}';
                        }
                        location /bad { return 400 '{"reason":"BadDeviceToken"}'; }
                    }

                """
        }
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log stderr warn;
            pid \(dir)/nginx.pid;
            events { worker_connections 1024; }
            http {
                access_log off;
                default_type application/json;
                client_body_temp_path \(dir)/tmp;
                proxy_temp_path \(dir)/tmp;
                fastcgi_temp_path \(dir)/tmp;
                uwsgi_temp_path \(dir)/tmp;
                scgi_temp_path \(dir)/tmp;
            \(servers)
            }

            """
    }
}

/// A plain HTTP/1.1 server in Python: `/sleep?ms=N` answers 200 after N ms; `/echo` answers 200 with the
/// request body and `x-echo-<name>` response headers repeating `expect`, `content-type`, `content-length`
/// and `x-custom`, plus a `Mixed-Case` header.
struct PlainHTTPServer {
    let port: Int
    let peer: PeerProcess

    private static let script = #"""
        import sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        sleepers = [0]
        sleepers_lock = threading.Lock()
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def respond(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path == "/sleepers":
                    with sleepers_lock:
                        body = str(sleepers[0]).encode()
                elif self.path.startswith("/sleep"):
                    with sleepers_lock:
                        sleepers[0] += 1
                    time.sleep(int(self.path.split("ms=")[1]) / 1000.0)
                    body = b"slept"
                self.send_response(200)
                for name in ("expect", "content-type", "content-length", "x-custom"):
                    self.send_header("x-echo-" + name, self.headers.get(name, "-"))
                self.send_header("Mixed-Case", "Value")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            do_GET = do_POST = do_PUT = do_DELETE = respond
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    init(directory: TemporaryDirectory) throws {
        let python = try TestPeers.python.require()
        let scriptFile = "\(directory.path)/server.py"
        try Self.script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        // Standard error to /dev/null: tracebacks for clients that hung up.
        peer = PeerProcess(try ChildProcess(python, [scriptFile], output: .pipe, errors: .null), directory: directory)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = peer.process.output!.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            peer.stop()
            throw TestSupportError(description: "python server did not report its port")
        }
        self.port = port
        try peer.waitUntilListening(port)
    }

    /// How many `/sleep` requests have arrived so far (each counted before it sleeps).
    func sleepers() throws -> Int {
        Int(try TestHTTPClient(port: port).request("GET", "/sleepers").text) ?? -1
    }

    func stop() { peer.stop() }
}

/// Results gathered from completion handlers running on the client's thread.
final class Collector<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    /// Appends `item`; returns how many there are now.
    @discardableResult
    func append(_ item: Element) -> Int {
        items.withLock { items in
            items.append(item)
            return items.count
        }
    }

    var values: [Element] { items.withLock { $0 } }
}

/// nghttpd (Debian nghttp2-server) over TLS with a test PKI, or in cleartext HTTP/2 (`tls: false`, `--no-tls`):
/// `--echo-upload` answers a request with a body by echoing it, and `htdocs` is served for GET and HEAD.
struct NghttpdServer {
    let port: Int
    let pki: TestPKI
    let htdocs: String
    let peer: PeerProcess
    let tls: Bool

    init(arguments: [String] = [], tls: Bool = true) throws {
        self.tls = tls
        let executable = try TestPeers.nghttpd.require()
        let directory = try TemporaryDirectory()
        pki = try TestPKI(in: directory.path, name: "nghttpd")
        htdocs = directory.path + "/htdocs"
        try FileManager.default.createDirectory(atPath: htdocs, withIntermediateDirectories: true)
        let (htdocs, pki) = (htdocs, pki)
        let started = try PeerProcess.start(in: directory, ports: 1) { ports in
            (
                executable,
                ["--echo-upload", "-n", "1", "-d", htdocs] + arguments
                    + (tls ? [String(ports[0]), pki.keyFile, pki.certificateFile] : ["--no-tls", String(ports[0])])
            )
        }
        (peer, port) = (started.peer, started.ports[0])
    }

    var url: String { (tls ? "https" : "http") + "://localhost:\(port)" }

    func stop() { peer.stop() }
}
