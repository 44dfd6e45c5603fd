import Testing

@testable import HeraldCrypto

@Suite struct SHA256Tests {
    /// FIPS 180-2 appendix B and the empty message.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesKnownAnswers(message: String, digest: String) {
        #expect(Hex.encode(SHA256.hash(message.utf8)) == digest)
        #expect(Hex.encode(SHA256.hash(Array(message.utf8))) == digest)
        #expect(Hex.encode(Array(message.utf8).withUnsafeBytes { SHA256.hash($0) }) == digest)
    }

    @Test func millionAs() {
        let digest = SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Hex.encode(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hashesNonContiguousSequences() {
        let bytes = (0..<1000).lazy.map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hash(bytes) == SHA256.hash(Array(bytes)))
        #expect(SHA256.hash(bytes).count == 32)
    }
}
