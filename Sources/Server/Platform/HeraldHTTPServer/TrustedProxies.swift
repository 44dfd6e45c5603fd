#if canImport(Glibc)
    import Glibc
#endif

/// The peers whose word on who the client is Herald takes (`--trusted-proxies`): a request that arrives from one of
/// them has its client address read from `Forwarded` (RFC 7239 `for=`) or `X-Forwarded-For` — the hops read from the
/// right, each trusted one skipped, the first that is not trusted being the client; with both, only when they agree.
/// From any other peer those headers mean nothing: anyone can send them. The per-address connection limit does not
/// count a trusted proxy's connections either (it carries everyone's).
///
/// ```swift
/// let proxies = try TrustedProxies(parsing: "127.0.0.1/32,10.0.0.0/8,::1")
/// proxies.client(peer: "127.0.0.1", headers: [("x-forwarded-for", "203.0.113.7")])   // "203.0.113.7"
/// proxies.client(peer: "198.51.100.2", headers: [("x-forwarded-for", "203.0.113.7")]) // "198.51.100.2"
/// ```
package struct TrustedProxies: Sendable, Equatable {
    /// An address range: the first `prefixLength` bits of a 16-byte address (IPv4 as `::ffff:a.b.c.d`).
    package struct Range: Sendable, Equatable, CustomStringConvertible {
        let bytes: [UInt8]
        let prefixLength: Int
        /// As it was written.
        package let description: String

        /// Whether `address` (16 bytes) is in the range.
        func contains(_ address: [UInt8]) -> Bool {
            var bits = prefixLength
            for index in 0..<16 where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[index] & mask != bytes[index] & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    /// Why a list could not be read.
    package struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        package let description: String
    }

    /// The ranges trusted.
    package let ranges: [Range]

    /// No proxy trusted: the client is always the peer.
    package static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) { self.ranges = ranges }

    /// The ranges in `text`: comma-separated CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses.
    package init(parsing text: String) throws(Invalid) {
        var ranges: [Range] = []
        for item in text.split(separator: ",") {
            let entry = item.trimmed(of: " ")
            guard !entry.isEmpty else { continue }
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.bytes(String(parts[0])) else {
                throw Invalid(description: "\(entry) is not an address or a CIDR range")
            }
            let isIPv4 = !parts[0].contains(":")
            let most = isIPv4 ? 32 : 128
            var length = most
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...most).contains(given) else {
                    throw Invalid(description: "\(entry): the prefix length must be 0 to \(most)")
                }
                length = given
            }
            ranges.append(Range(bytes: bytes, prefixLength: isIPv4 ? length + 96 : length, description: entry))
        }
        self.ranges = ranges
    }

    /// Whether `address` (numeric) is a trusted proxy's.
    package func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.bytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address for a request from `peer` with `headers` (names lower-cased): `peer` itself unless it is
    /// trusted and a forwarding header names hops. A hop that is not an address ends the walk at the last one read.
    /// When both `Forwarded` and `X-Forwarded-For` name a client and not the same one, neither is believed and the
    /// client is `peer`: a proxy writes one of them, the other came from the client, and which is which cannot be told.
    package func client(peer: String?, headers: [(name: String, value: String)]) -> String? {
        guard let peer, contains(peer) else { return peer }
        let forwarded = headers.filter { $0.name == "forwarded" }.map(\.value)
        let forwardedFor = headers.filter { $0.name == "x-forwarded-for" }.map(\.value)
        let fromForwarded =
            forwarded.isEmpty
            ? nil
            : client(peer: peer, hops: forwarded.joined(separator: ",").split(separator: ",").compactMap(Self.forValue))
        let fromForwardedFor =
            forwardedFor.isEmpty
            ? nil : client(peer: peer, hops: forwardedFor.joined(separator: ",").split(separator: ","))
        switch (fromForwarded, fromForwardedFor) {
        case (let one?, nil), (nil, let one?): return one
        case (let one?, let other?): return one == other ? one : peer
        case (nil, nil): return peer
        }
    }

    /// The right-most of `hops` that is not a trusted proxy (`peer`, trusted, when every hop is).
    private func client(peer: String, hops: [Substring]) -> String {
        var client = peer
        for hop in hops.reversed() {
            guard let address = Self.canonical(hop) else { break }
            client = address
            if !contains(address) { break }
        }
        return client
    }

    /// The `for=` parameter of one `Forwarded` element.
    private static func forValue(_ element: Substring) -> Substring? {
        for pair in element.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard trimmed.count > 4, trimmed.prefix(4).lowercased() == "for=" else { continue }
            return trimmed.dropFirst(4)
        }
        return nil
    }

    /// A hop as a numeric address, written as `inet_ntop` writes it (quotes, brackets and a port taken off); nil
    /// when it is not an address (`unknown`, an obfuscated name).
    static func canonical(_ hop: Substring) -> String? {
        var text = Substring(hop.trimmed(of: " \t\""))
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = text[..<colon]  // IPv4 with a port
        }
        guard let bytes = bytes(String(text)) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let isMappedIPv4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        let written: Bool
        if isMappedIPv4 {
            var address = in_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes[12..<16]) }
            written = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil
        } else {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            written = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
        }
        guard written else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A numeric IPv4 or IPv6 address as 16 bytes (IPv4 mapped into `::ffff:0:0/96`).
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

extension StringProtocol {
    /// Without the characters of `set` at either end.
    fileprivate func trimmed(of set: String) -> String {
        let scalars = Set(set)
        return String(drop { scalars.contains($0) }.reversed().drop { scalars.contains($0) }.reversed())
    }
}
