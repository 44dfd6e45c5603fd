/// Splitting a request target, decoding `application/x-www-form-urlencoded` pairs and percent-encoding (RFC 3986):
/// the HTTP server's, a provider's form body, and the device API's signed queries (`DeviceRequestSignature`).
public enum QueryString {
    /// Splits `target` into a decoded path and decoded query pairs.
    public static func split(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            return (percentDecoded(target, plusIsSpace: false), [])
        }
        let path = String(target[..<mark])
        let query = String(target[target.utf8.index(after: mark)...])
        return (percentDecoded(path, plusIsSpace: false), parse(query))
    }

    /// Parses `a=1&b=two` into pairs; a name without `=` has an empty value.
    public static func parse(_ query: String) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        let utf8 = query.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            if start < end {
                let part = utf8[start..<end]
                if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append(
                        (
                            percentDecoded(String(Substring(part[..<equals])), plusIsSpace: true),
                            percentDecoded(String(Substring(part[utf8.index(after: equals)...])), plusIsSpace: true)
                        ))
                } else {
                    pairs.append((percentDecoded(String(Substring(part)), plusIsSpace: true), ""))
                }
            }
            start = end < utf8.endIndex ? utf8.index(after: end) : end
        }
        return pairs
    }

    /// Decodes `%XX` escapes (and `+` as space when asked). Invalid escapes are kept as written.
    public static func percentDecoded(_ text: String, plusIsSpace: Bool) -> String {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) || (plusIsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` with every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) written `%XX`
    /// (upper-case hex) of its UTF-8.
    public static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
