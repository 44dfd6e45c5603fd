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
        // Written in place: every queued push gets one (its apns-id), and building it through arrays took three
        // allocations where the string needs one.
        return String(unsafeUninitializedCapacity: 36) { (buffer: UnsafeMutableBufferPointer<UInt8>) -> Int in
            var position = 0
            func write(_ bits: UInt64, dashesBefore first: Int, _ second: Int) {
                for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
                    if index == first || index == second {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let digit = UInt8((bits >> UInt64(shift)) & 0xF)
                    buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    position += 1
                }
            }
            write(high, dashesBefore: 8, 12)
            write(low, dashesBefore: 0, 4)
            return position
        }
    }
}
