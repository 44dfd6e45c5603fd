/// A minimal DER codec for `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` with short lengths (P-256),
/// written independently of HeraldCrypto so the tests can talk to `openssl dgst`.
enum ECDSADER {
    /// DER from a 64-byte raw `r ‖ s`.
    static func encode(raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    /// A 64-byte raw `r ‖ s` from DER, or nil if it is not a short-form P-256 signature.
    static func decode(_ der: [UInt8]) -> [UInt8]? {
        guard der.count > 2, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            guard index + 2 + length <= der.count else { return nil }
            let value = Array(der[(index + 2)..<(index + 2 + length)].drop(while: { $0 == 0 }))
            guard value.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - value.count) + value
            index += 2 + length
        }
        return index == der.count ? raw : nil
    }
}
