import Testing

@testable import HeraldCrypto

@Suite struct SecretBoxTests {
    private let box: SecretBox
    private let key: [UInt8]

    init() throws {
        key = SecretBox.generateKey()
        box = try SecretBox(key: key)
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1000, 1 << 20])
    func sealThenOpen(count: Int) throws {
        let plaintext = SecureRandom.bytes(count: count)
        let sealed = try box.seal(plaintext)
        #expect(sealed.count == count + 29)
        #expect(try box.open(sealed) == plaintext)
    }

    @Test func writesVersionNonceCiphertextTag() throws {
        let plaintext = Array("-----BEGIN PRIVATE KEY-----".utf8)
        let sealed = try box.seal(plaintext)
        #expect(sealed[0] == 0x01)
        #expect(Array(sealed[13..<(13 + plaintext.count)]) != plaintext)
        let again = try box.seal(plaintext)
        #expect(sealed[1..<13] != again[1..<13], "each seal draws a fresh nonce")
    }

    /// The GCM specification's test case 16 (AES-256, 96-bit IV, with AAD), framed in SecretBox's format.
    @Test func opensAKnownAnswerVector() throws {
        let key = Hex.decode("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")!
        let nonce = Hex.decode("cafebabefacedbaddecaf888")!
        let plaintext = Hex.decode(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525"
                + "b16aedf5aa0de657ba637b39")!
        let associatedData = Hex.decode("feedfacedeadbeeffeedfacedeadbeefabaddad2")!
        let ciphertext = Hex.decode(
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838"
                + "c5f61e6393ba7a0abcc9f662")!
        let tag = Hex.decode("76fc6ece0f4e1768cddf8853bb2d551b")!
        let box = try SecretBox(key: key)
        #expect(try box.open([0x01] + nonce + ciphertext + tag, associatedData: associatedData) == plaintext)
    }

    @Test func bindsAssociatedData() throws {
        let sealed = try box.seal(Array("secret".utf8), associatedData: Array("business-1".utf8))
        #expect(try box.open(sealed, associatedData: Array("business-1".utf8)) == Array("secret".utf8))
        for other in [[], Array("business-2".utf8)] {
            let error = #expect(throws: CryptoError.self) { try box.open(sealed, associatedData: other) }
            #expect(error?.code == .decryptionFailed)
        }
    }

    @Test func refusesAnotherKey() throws {
        let sealed = try box.seal(Array("secret".utf8))
        let other = try SecretBox(key: SecretBox.generateKey())
        let error = #expect(throws: CryptoError.self) { try other.open(sealed) }
        #expect(error?.code == .decryptionFailed)
    }

    @Test func detectsTamperingAnywhere() throws {
        let sealed = try box.seal(Array("a secret worth protecting".utf8))
        for index in sealed.indices {
            var tampered = sealed
            tampered[index] ^= 0x01
            let error = #expect(throws: CryptoError.self) { try box.open(tampered) }
            #expect(error?.code == .decryptionFailed)
        }
    }

    @Test func refusesTruncatedValues() throws {
        let sealed = try box.seal(Array("secret".utf8))
        for count in 0..<sealed.count {
            #expect(throws: CryptoError.self) { try box.open(Array(sealed.prefix(count))) }
        }
        #expect(throws: CryptoError.self) { try box.open(Array(sealed.dropFirst())) }
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func refusesKeysThatAreNot32Bytes(count: Int) {
        let error = #expect(throws: CryptoError.self) { try SecretBox(key: [UInt8](repeating: 1, count: count)) }
        #expect(error?.code == .invalidKey)
    }

    @Test func neverPrintsTheKey() {
        let keyHex = Hex.encode(key)
        let keyDecimal = "\(key)"
        var dumped = ""
        dump(box, to: &dumped)
        for text in [box.description, String(reflecting: box), "\(box)", dumped] {
            #expect(!text.contains(keyHex) && !text.contains(keyDecimal) && !text.contains("\(key[0]), \(key[1])"))
        }
    }

    @Test func sealsConcurrently() async throws {
        let box = self.box
        let allOpened = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<500).allSatisfy { index in
                        let plaintext = Array("task \(task) item \(index)".utf8)
                        return (try? box.open(box.seal(plaintext))) == plaintext
                    }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(allOpened)
    }

    @Test(.enabled(if: Benchmark.isEnabled))
    func throughputAndMemory() throws {
        let plaintext = SecureRandom.bytes(count: 256)
        let sealed = try box.seal(plaintext, associatedData: [1])
        Benchmark.measure("SecretBox seal 256 B", iterations: 200_000) { _ = try? box.seal(plaintext) }
        Benchmark.expectNoLeak("SecretBox seal, open, failed open", iterations: 200_000) {
            _ = try? box.open(box.seal(plaintext))
            _ = try? box.open(sealed)
        }
    }
}
