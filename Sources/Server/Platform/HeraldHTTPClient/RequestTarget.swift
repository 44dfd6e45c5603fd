import HeraldModel

/// Where a request goes, read from its URL without copying it: the scheme, the host and port, and the byte
/// range of the path and query (the `:path` sent). Offsets count UTF-8 bytes of ``HTTPClientRequest/url``.
struct RequestTarget: Sendable, Equatable {
    /// `https` (TLS) rather than `http`.
    var isTLS: Bool
    /// The host's bytes, without the brackets of an IPv6 literal.
    var hostStart: Int
    var hostEnd: Int
    /// The explicit port, or 443 / 80.
    var port: Int
    /// The path and query; empty when the URL has neither (sent as `/`).
    var pathStart: Int
    var pathEnd: Int

    /// Reads `url`; `nil` unless it is an absolute `http://` or `https://` URL with a host, an optional port
    /// in 1...65535, no user information and nothing but path, query and fragment after it.
    static func parse(_ url: String) -> RequestTarget? {
        url.withBorrowedUTF8 { parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> RequestTarget? {
        var index = 0
        func lower(_ byte: UInt8) -> UInt8 { byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte }
        func consume(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where lower(bytes[index + offset]) != literal.utf8Start[offset] { return false }
            index += count
            return true
        }
        let isTLS: Bool
        if consume("https://") {
            isTLS = true
        } else if consume("http://") {
            isTLS = false
        } else {
            return nil
        }
        var hostStart = index
        var hostEnd: Int
        if index < bytes.count && bytes[index] == UInt8(ascii: "[") {
            index += 1
            hostStart = index
            while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
                let byte = bytes[index]
                guard byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || isHexDigit(byte) else { return nil }
                index += 1
            }
            guard index < bytes.count else { return nil }
            hostEnd = index
            index += 1
        } else {
            while index < bytes.count && !isAuthorityEnd(bytes[index]) && bytes[index] != UInt8(ascii: ":") {
                guard isHostByte(bytes[index]) else { return nil }
                index += 1
            }
            hostEnd = index
        }
        guard hostEnd > hostStart else { return nil }
        var port = isTLS ? 443 : 80
        if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
            index += 1
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                digits += 1
                guard value <= 65535 else { return nil }
                index += 1
            }
            if digits > 0 {
                guard value > 0 else { return nil }
                port = value
            }
        }
        guard index == bytes.count || isAuthorityEnd(bytes[index]) else { return nil }
        let pathStart = index
        while index < bytes.count && bytes[index] != UInt8(ascii: "#") { index += 1 }
        return RequestTarget(
            isTLS: isTLS, hostStart: hostStart, hostEnd: hostEnd, port: port, pathStart: pathStart, pathEnd: index)
    }

    /// Whether the path is empty or starts with `?`, so that `/` must be sent before it.
    func needsLeadingSlash(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        pathStart == pathEnd || bytes[pathStart] != UInt8(ascii: "/")
    }

    private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// Letters, digits, `-`, `.`, `_`, `~` and `%`: a registered name (no user information, no `@`).
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }
}
