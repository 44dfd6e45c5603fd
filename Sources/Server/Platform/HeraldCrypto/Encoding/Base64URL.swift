/// Base64 with the URL- and filename-safe alphabet of RFC 4648 §5 (`-` and `_`), as used by JWT (RFC 7515).
///
/// Encoding never pads. Decoding is strict: it accepts unpadded or correctly padded input, rejects the standard
/// alphabet's `+` and `/`, whitespace, impossible lengths and non-zero trailing bits, so every byte string has exactly
/// one accepted spelling.
///
/// ```swift
/// Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8))   // "eyJhbGciOiJFUzI1NiJ9"
/// ```
package enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let invalid: UInt8 = 0xff

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// The unpadded base64url text for `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        let outputCount = (input.count / 3) * 4 + [0, 2, 3][input.count % 3]
        return String(unsafeUninitializedCapacity: outputCount) { output in
            var written = 0
            var index = 0
            while index + 3 <= input.count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[written] = alphabet[Int(group >> 18 & 0x3f)]
                output[written + 1] = alphabet[Int(group >> 12 & 0x3f)]
                output[written + 2] = alphabet[Int(group >> 6 & 0x3f)]
                output[written + 3] = alphabet[Int(group & 0x3f)]
                written += 4
                index += 3
            }
            switch input.count - index {
            case 1:
                let group = UInt32(input[index]) << 16
                output[written] = alphabet[Int(group >> 18 & 0x3f)]
                output[written + 1] = alphabet[Int(group >> 12 & 0x3f)]
                written += 2
            case 2:
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                output[written] = alphabet[Int(group >> 18 & 0x3f)]
                output[written + 1] = alphabet[Int(group >> 12 & 0x3f)]
                output[written + 2] = alphabet[Int(group >> 6 & 0x3f)]
                written += 3
            default:
                break
            }
            return written
        }
    }

    /// The bytes spelled by `text`, or nil if it is not canonical base64url (see the type's documentation).
    package static func decode(_ text: String) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(UnsafeRawBufferPointer($0)) }) {
            return decoded
        }
        return Array(text.utf8).withUnsafeBytes { decode($0) }
    }

    private static func decode(_ ascii: UnsafeRawBufferPointer) -> [UInt8]? {
        var count = ascii.count
        if count % 4 == 0, count > 0, ascii[count - 1] == UInt8(ascii: "=") {
            count -= ascii[count - 2] == UInt8(ascii: "=") ? 2 : 1
        }
        guard count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<count {
            let value = reverse[Int(ascii[index])]
            guard value != invalid else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { return nil }  // non-canonical: unused trailing bits must be zero
        return output
    }
}
