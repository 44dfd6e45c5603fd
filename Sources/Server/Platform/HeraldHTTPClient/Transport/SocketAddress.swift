#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 or IPv6 address and port to connect to.
struct SocketAddress: Sendable {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    var family: Int32 { Int32(storage.ss_family) }

    /// `host` as an IP literal (IPv4 dotted, or IPv6 without brackets), or `nil` for a name.
    static func literal(_ host: String, port: Int) -> SocketAddress? {
        var address = SocketAddress()
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = UInt16(port).bigEndian
            withUnsafeBytes(of: ipv4) { source in
                withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: source) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return address
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = UInt16(port).bigEndian
            withUnsafeBytes(of: ipv6) { source in
                withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: source) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            return address
        }
        return nil
    }

    /// Resolves `host` (blocking: call it off the event loop). Addresses in the resolver's order, or why none.
    static func resolve(_ host: String, port: Int) -> Result<[SocketAddress], HTTPClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            return .failure(HTTPClientError(code: .connectionFailed, message: "cannot resolve \(host): \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            if let source = current.pointee.ai_addr,
                current.pointee.ai_addrlen <= socklen_t(MemoryLayout<sockaddr_storage>.size)
            {
                var address = SocketAddress()
                withUnsafeMutableBytes(of: &address.storage) {
                    $0.baseAddress!.copyMemory(from: source, byteCount: Int(current.pointee.ai_addrlen))
                }
                address.length = current.pointee.ai_addrlen
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(HTTPClientError(code: .connectionFailed, message: "cannot resolve \(host): no address"))
        }
        return .success(addresses)
    }
}
