import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Listening: the socket the server accepts from, made here unless one is handed over
/// (`Configuration.listeningSocket`).
extension HTTPServer {
    /// The address family of a socket.
    enum AddressFamily {
        case ipv4, ipv6

        init(socket: Int32) {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            self = Int32(address.ss_family) == AF_INET6 ? .ipv6 : .ipv4
        }
    }

    /// A TCP socket bound to `host`:`port` and listening, with SO_REUSEADDR (a restart does not wait out
    /// TIME_WAIT) and SO_REUSEPORT only when `reusePort`. A port in use, an address not on this machine or a port
    /// below 1024 without the privilege is an error naming `host:port` and the reason, in one line.
    package static func listen(host: String, port: Int, reusePort: Bool = false) throws -> Int32 {
        try listen(host: host, port: port, reusePort: reusePort).0
    }

    static func listen(host: String, port: Int, reusePort: Bool) throws -> (Int32, AddressFamily) {
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let info = result else {
            throw StartError(description: "cannot listen on \(shown): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let family = info.pointee.ai_family
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw StartError(description: "cannot listen on \(shown): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if family == AF_INET6 {
            var zero: Int32 = 0
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(descriptor, 512) == 0
        else {
            let reason = errno
            _ = close(descriptor)
            let why =
                reason == EADDRINUSE
                ? "address already in use (another herald or program holds it; --reuse-port shares it on purpose)"
                : String(cString: strerror(reason))
            throw StartError(description: "cannot listen on \(shown): \(why)")
        }
        // Every thread of the pool accepts from it: none may block there.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return (descriptor, family == AF_INET6 ? .ipv6 : .ipv4)
    }
}
