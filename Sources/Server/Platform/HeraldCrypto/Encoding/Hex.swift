/// Hexadecimal text for bytes: lowercase on output, either case on input.
///
/// ```swift
/// Hex.encode([0xde, 0xad])   // "dead"
/// Hex.decode("DEAD")         // [0xde, 0xad]
/// ```
package enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two lowercase hex digits per byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        return String(unsafeUninitializedCapacity: input.count * 2) { output in
            var index = 0
            for byte in input {
                output[index] = digits[Int(byte >> 4)]
                output[index + 1] = digits[Int(byte & 0x0f)]
                index += 2
            }
            return index
        }
    }

    /// The bytes spelled by `text`, or nil if it has an odd length or a character that is not a hex digit.
    /// Whitespace and `0x` prefixes are not accepted.
    package static func decode(_ text: String) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(UnsafeRawBufferPointer($0)) }) {
            return decoded
        }
        return Array(text.utf8).withUnsafeBytes { decode($0) }
    }

    private static func decode(_ ascii: UnsafeRawBufferPointer) -> [UInt8]? {
        guard ascii.count % 2 == 0 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(ascii.count / 2)
        var index = 0
        while index < ascii.count {
            guard let high = nibble(ascii[index]), let low = nibble(ascii[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
