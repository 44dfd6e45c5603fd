import Testing

@testable import HeraldSDK

/// The SDK's own SHA-256 against FIPS 180-4's examples (NIST), and split updates against one-shot hashing.
@Suite struct SHA256Tests {
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test(arguments: 0..<vectors.count) func nistExamples(_ index: Int) {
        let (message, digest) = Self.vectors[index]
        #expect(HexEncoding.encode(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionAs() {
        var hash = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hash.update(chunk) }
        #expect(
            HexEncoding.encode(hash.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func splitUpdatesMatchOneShot() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300] {
            let bytes = Array(message.prefix(length))
            for split in Set([0, length / 3, length / 2, length]) {
                var hash = SHA256()
                hash.update(bytes[..<split])
                hash.update(bytes[split...])
                #expect(hash.finalize() == SHA256.hash(bytes), "length \(length), split \(split)")
            }
        }
    }
}

/// HMAC-SHA256 against RFC 4231's test cases.
@Suite struct HMACSHA256Tests {
    static func bytes(_ hex: String) -> [UInt8] { HexEncoding.decode(hex)! }

    static let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        // Test case 5 gives only the first 128 bits.
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8), "a3b6167473100ee06e0c796c2955552b"),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131),
            Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test(arguments: 1...7) func rfc4231(_ number: Int) {
        let test = Self.cases[number - 1]
        let mac = HexEncoding.encode(HMACSHA256.authenticationCode(for: test.data, key: test.key))
        #expect(mac.hasPrefix(test.mac), "test case \(number)")
    }

    @Test func hexOfAnyLength() {
        #expect(HexEncoding.encode([]) == "")
        #expect(HexEncoding.encode([0x00, 0xff, 0x0a]) == "00ff0a")
        let long = (0..<100).map { UInt8($0) }
        #expect(HexEncoding.encode(long).count == 200)
        #expect(HexEncoding.decode(HexEncoding.encode(long)) == long)
        #expect(HexEncoding.decode("ABcd") == [0xab, 0xcd])
        #expect(HexEncoding.decode("abc") == nil)
        #expect(HexEncoding.decode("zz") == nil)
    }
}
