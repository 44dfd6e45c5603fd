import Foundation
import HeraldHTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal blocking HTTP client for tests: over one TCP connection speaking HTTP/1.1 (`Transport.socket`), for
/// tests that need exact control of the bytes sent (bodies on GET, odd headers, raw garbage) and to see exactly
/// what came back; or straight to a server in this process (`Transport.inProcess`), with no socket, answered as
/// the server answers over one (`HTTPServer.respond(inProcess:peer:)`).
public final class TestHTTPClient: @unchecked Sendable {
    /// How requests reach the server.
    package enum Transport: Sendable {
        /// HTTP/1.1 over a TCP connection to `host`:`port`.
        case socket(host: String, port: Int)
        /// Handed to `server` in this process (it need not listen); `send(raw:)` has no connection to write to.
        case inProcess(HTTPServer)
    }

    /// A response as received.
    public struct Response: Sendable, CustomStringConvertible {
        /// Status code.
        public var status: Int
        /// Headers with lower-cased names.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: [UInt8]

        /// The first header named `name`.
        public func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body parsed as JSON (fails the caller's expectation if it isn't).
        public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        public var description: String { "\(status) \(text)" }
    }

    /// Why a request failed below HTTP.
    public struct Failure: Error, CustomStringConvertible {
        /// What happened.
        public let description: String
        /// A failure saying `description`.
        public init(description: String) { self.description = description }
    }

    /// How requests reach the server.
    package let transport: Transport
    private let host: String
    private let port: Int
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    /// Seconds to wait for a response before failing.
    public var timeout: Double = 20
    /// The local IPv4 address to connect from (any of 127.0.0.0/8 on loopback), when not the system's choice: a
    /// client at another address, as far as the server can tell.
    /// In process, it is the peer address the server sees (127.0.0.1 when nil).
    public var sourceAddress: String?
    /// What every answer is checked against (`LiveHerald.client()` sets docs/openapi.json's): a mismatch is an
    /// issue of the test running, saying what the document and the answer disagree on.
    public var validator: OpenAPIValidator?
    /// The method and target of each request sent whose answer is not read yet, oldest first.
    private var unanswered: [(method: String, target: String)] = []

    /// A client for `host:port`; it connects on first use and reconnects when the server closed.
    public convenience init(host: String = "127.0.0.1", port: Int) {
        self.init(.socket(host: host, port: port))
    }

    /// A client over `transport`.
    package init(_ transport: Transport) {
        self.transport = transport
        switch transport {
        case .socket(let host, let port): (self.host, self.port) = (host, port)
        case .inProcess: (self.host, self.port) = ("herald.test", 80)
        }
    }

    deinit { close() }

    /// Closes the connection.
    public func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
        buffer = []
        unanswered = []
    }

    /// Opens the connection now.
    public func connect() throws {
        guard socket < 0 else { return }
        guard case .socket = transport else {
            throw Failure(description: "an in-process client has no connection: use a socket (a test tagged .endToEnd)")
        }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        if let sourceAddress {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, sourceAddress, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw Failure(description: "bind to \(sourceAddress) failed: errno \(errno)")
            }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect to \(host):\(port) failed: errno \(errno)")
        }
        // Fractions count: a 0.5 s timeout must not become 0 (no timeout at all).
        var timeout = timeval(
            tv_sec: Int(self.timeout), tv_usec: Int((self.timeout - self.timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
    }

    /// Writes raw bytes on the connection. Bytes that start a request (`METHOD target HTTP/1.x`) are remembered as
    /// the request the next answer read is checked for; other bytes (a body's next chunk, garbage) are not.
    public func send(raw bytes: [UInt8]) throws {
        try connect()
        if validator != nil, let head = Self.requestLine(bytes) { unanswered.append(head) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { throw Failure(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Sends a request and reads its response. `Content-Length` is added when there is a body.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> Response {
        if case .inProcess(let server) = transport {
            return exchange(with: server, method, target, headers: headers, body: body)
        }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        do {
            try send(raw: Array(head.utf8) + body)
            return try readResponse(method: method)
        } catch let failure as Failure where buffer.isEmpty {
            // The server may have closed an idle keep-alive connection: try once on a new one.
            close()
            _ = failure
            try send(raw: Array(head.utf8) + body)
            return try readResponse(method: method)
        }
    }

    /// The in-process exchange of `request`, with the same `Host` and `Content-Length` as over a socket.
    private func exchange(
        with server: HTTPServer, _ method: String, _ target: String, headers: [(String, String)], body: [UInt8]
    ) -> Response {
        var fields = [(name: "Host", value: host)] + headers.map { (name: $0.0, value: $0.1) }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
            fields.append((name: "Content-Length", value: String(body.count)))
        }
        let answer = server.respond(
            inProcess: .init(method: method, target: target, headers: fields, body: body),
            peer: sourceAddress ?? "127.0.0.1")
        var bytes: [UInt8] = []
        if case .bytes(let sent) = answer.body { bytes = sent }
        let response = Response(
            status: answer.status.code, headers: answer.headers.map { (name: $0.name.lowercased(), value: $0.value) },
            body: bytes)
        if let validator { check(response, to: (method, target), with: validator) }
        return response
    }

    /// A request with a JSON text body.
    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], json: String) throws
        -> Response
    {
        try request(method, target, headers: headers + [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count <= 0 {
            close()
            throw Failure(
                description: count == 0 ? "connection closed by server" : "receive failed or timed out: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[0..<count])
    }

    /// Reads one response (after `send(raw:)`).
    public func readResponse(method: String = "GET") throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = buffer.firstRange(of: separator) { headerEnd = range.lowerBound } else { try fill() }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body: [UInt8] = []
        let lengthHeader = headers.first { $0.name == "content-length" }?.value
        if method == "HEAD" || status == 204 || status == 304 {
            // no body
        } else if let lengthHeader, let length = Int(lengthHeader) {
            while buffer.count < length { try fill() }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if headers.contains(where: {
            $0.name == "transfer-encoding" && $0.value.lowercased().contains("chunked")
        }) {
            while true {
                var lineEnd: Int?
                while lineEnd == nil {
                    if let range = buffer.firstRange(of: [13, 10]) { lineEnd = range.lowerBound } else { try fill() }
                }
                let size =
                    Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try fill() }
                body += buffer[0..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            // Until close.
            while true {
                do { try fill() } catch { break }
            }
            body = buffer
            buffer = []
        }
        let request = unanswered.isEmpty ? nil : unanswered.removeFirst()
        if headers.contains(where: { $0.name == "connection" && $0.value.lowercased() == "close" }) { close() }
        let response = Response(status: status, headers: headers, body: body)
        if let validator { check(response, to: request, with: validator) }
        return response
    }

    /// Records an issue for each way `response` (to `request`, nil when none was sent that reads as one) differs
    /// from what the validator's document says.
    private func check(
        _ response: Response, to request: (method: String, target: String)?, with validator: OpenAPIValidator
    ) {
        let exchange = OpenAPIValidator.Exchange(
            method: request?.method, target: request?.target ?? "", status: response.status,
            contentType: response.header("content-type"), body: response.body)
        OpenAPIValidator.record(validator.problems(exchange))
    }

    /// The method and target of the request line `bytes` start with, if they start with one.
    static func requestLine(_ bytes: [UInt8]) -> (method: String, target: String)? {
        guard let end = bytes.prefix(8192).firstIndex(of: 13) else { return nil }
        let parts = String(decoding: bytes[..<end], as: UTF8.self).split(
            separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty,
            parts[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }), !parts[1].isEmpty
        else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
