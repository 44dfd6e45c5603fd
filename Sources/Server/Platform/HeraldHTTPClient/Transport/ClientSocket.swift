import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A non-blocking TCP socket, with TLS on top once ``startTLS(_:host:)`` is called: connect, handshake,
/// read and write, each returning at once. Confined to its event-loop thread.
final class ClientSocket {
    /// How a read or write went.
    enum IOResult {
        /// This many bytes moved (more than zero).
        case bytes(Int)
        /// Nothing now; wait for the socket (``wantsWritable`` says for which).
        case wouldBlock
        /// The peer closed the connection.
        case closed
        case failed(String)
    }

    /// How a step of the TLS handshake went.
    enum HandshakeResult {
        /// Done; the protocol the server chose by ALPN, if any.
        case done(alpn: String?)
        case wouldBlock
        case failed(HTTPClientError)
    }

    let fd: Int32
    private(set) var ssl: OpaquePointer?
    /// Whether the last TLS operation waits for the socket to be writable rather than readable.
    private(set) var wantsWritable = false

    /// A new non-blocking socket for `family`, or why not.
    init(family: Int32) throws(HTTPClientError) {
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw HTTPClientError(code: .connectionFailed, message: "socket(): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
        var idle: Int32 = 30
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, socklen_t(MemoryLayout<Int32>.size))
        var interval: Int32 = 15
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        close(fd)
    }

    /// Starts connecting: `true` when connected or under way (wait for writable, then ``connectResult()``).
    func connect(to address: SocketAddress) -> Result<Bool, HTTPClientError> {
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if status == 0 { return .success(true) }
        if errno == EINPROGRESS { return .success(false) }
        return .failure(Self.connectError(errno))
    }

    /// After the socket became writable while connecting: whether the connection was made.
    func connectResult() -> HTTPClientError? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return Self.connectError(errno) }
        return error == 0 ? nil : Self.connectError(error)
    }

    private static func connectError(_ code: Int32) -> HTTPClientError {
        HTTPClientError(code: .connectionFailed, message: "connect: \(String(cString: strerror(code)))")
    }

    /// Puts TLS on the connected socket: SNI and certificate verification for `host` (a name, or an IP literal
    /// matched against the certificate's IP addresses).
    func startTLS(_ context: TLSContext, host: String) throws(HTTPClientError) {
        guard let ssl = SSL_new(context.context) else {
            throw HTTPClientError(code: .tls, message: "SSL_new failed: \(TLSContext.takeErrors())")
        }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw HTTPClientError(code: .tls, message: "SSL_set_fd failed: \(TLSContext.takeErrors())")
        }
        if SocketAddress.literal(host, port: 0) != nil {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw HTTPClientError(code: .tls, message: "cannot verify IP \(host): \(TLSContext.takeErrors())")
            }
        } else {
            guard herald_SSL_set_tlsext_host_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else {
                throw HTTPClientError(code: .tls, message: "cannot set host name \(host): \(TLSContext.takeErrors())")
            }
        }
        SSL_set_connect_state(ssl)
    }

    /// Runs the TLS handshake as far as the socket allows.
    func handshake() -> HandshakeResult {
        guard let ssl else { return .done(alpn: nil) }
        ERR_clear_error()
        let status = SSL_do_handshake(ssl)
        if status == 1 {
            wantsWritable = false
            var selected: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &selected, &length)
            guard let selected, length > 0 else { return .done(alpn: nil) }
            return .done(
                alpn: String(decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self))
        }
        switch SSL_get_error(ssl, status) {
        case SSL_ERROR_WANT_READ:
            wantsWritable = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantsWritable = true
            return .wouldBlock
        default:
            let verify = SSL_get_verify_result(ssl)
            var message = "TLS handshake failed"
            if verify != X509_V_OK {
                message += ": certificate verification: " + String(cString: X509_verify_cert_error_string(verify))
            }
            let errors = TLSContext.takeErrors()
            if errors != "no detail" { message += " (\(errors))" }
            if errno == ECONNRESET || errno == EPIPE {
                message += " (connection reset)"
            }
            return .failed(HTTPClientError(code: .tls, message: message))
        }
    }

    /// Reads into `buffer`.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> IOResult {
        if let ssl {
            ERR_clear_error()
            var read = 0
            if SSL_read_ex(ssl, buffer, count, &read) == 1 {
                wantsWritable = false
                return .bytes(read)
            }
            return tlsFailure(ssl, status: 0)
        }
        while true {
            let read = recv(fd, buffer, count, 0)
            if read > 0 { return .bytes(read) }
            if read == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(String(cString: strerror(errno)))
        }
    }

    /// Whether TLS holds bytes read from the socket and not yet returned by `read`: with read-ahead a read may take
    /// more than the record it returns, and the rest no longer wakes the event loop.
    var hasPendingBytes: Bool {
        guard let ssl else { return false }
        return SSL_has_pending(ssl) == 1
    }

    /// Writes from `bytes`; may write fewer.
    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .bytes(0) }
        if let ssl {
            ERR_clear_error()
            var written = 0
            if SSL_write_ex(ssl, base, bytes.count, &written) == 1 {
                wantsWritable = false
                return .bytes(written)
            }
            return tlsFailure(ssl, status: 0)
        }
        while true {
            let written = send(fd, base, bytes.count, Int32(MSG_NOSIGNAL))
            if written >= 0 { return .bytes(written) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(String(cString: strerror(errno)))
        }
    }

    private func tlsFailure(_ ssl: OpaquePointer, status: Int32) -> IOResult {
        let code = SSL_get_error(ssl, status)
        switch code {
        case SSL_ERROR_WANT_READ:
            wantsWritable = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantsWritable = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL:
            let reason = errno
            let errors = TLSContext.takeErrors()
            if reason == 0 {
                return errors == "no detail" ? .closed : .failed("TLS: \(errors)")
            }
            return .failed(String(cString: strerror(reason)))
        default:
            return .failed("TLS: \(TLSContext.takeErrors())")
        }
    }
}
