/// Canonical lower-case UUID strings (8-4-4-4-12), as APNs wants in `apns-id`.
public enum UUIDString {
    /// A random (version 4) UUID.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return format(
            UInt64.random(in: .min ... .max, using: &generator), UInt64.random(in: .min ... .max, using: &generator))
    }

    /// Formats 128 bits as a version-4 UUID string.
    public static func format(_ high: UInt64, _ low: UInt64) -> String {
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 8 || index == 12 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int((high >> UInt64(shift)) & 0xF)])
        }
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 0 || index == 4 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int((low >> UInt64(shift)) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
