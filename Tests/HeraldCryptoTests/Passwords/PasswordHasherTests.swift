import Testing

@testable import HeraldCrypto

/// A well-formed 32-byte key field for hand-written hashes.
private let validKey = Base64URL.encode([UInt8](repeating: 7, count: 32))

@Suite struct PasswordHasherTests {
    private let hasher = PasswordHasher(parameters: .fastForTests)

    /// An encoded hash in Herald's format from raw scrypt inputs and output.
    private static func encoded(n: Int, r: Int, p: Int, salt: String, keyHex: String) -> String {
        "scrypt$\(n)$\(r)$\(p)$\(Base64URL.encode(salt.utf8))$\(Base64URL.encode(Hex.decode(keyHex)!))"
    }

    /// RFC 7914 §12, vectors 1 and 2 (64-byte keys), checked through `verify`.
    @Test func verifiesRFC7914Vectors() {
        let vector1 = Self.encoded(
            n: 16, r: 1, p: 1, salt: "",
            keyHex: "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906")
        let vector2 = Self.encoded(
            n: 1024, r: 8, p: 16, salt: "NaCl",
            keyHex: "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
                + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
        #expect(hasher.verify("", against: vector1))
        #expect(!hasher.verify("x", against: vector1))
        #expect(hasher.verify("password", against: vector2))
        #expect(!hasher.verify("Password", against: vector2))
    }

    @Test func hashThenVerify() throws {
        let stored = try hasher.hash("correct horse battery staple")
        #expect(hasher.verify("correct horse battery staple", against: stored))
        #expect(!hasher.verify("correct horse battery stapl", against: stored))
        #expect(!hasher.verify("", against: stored))
    }

    @Test func handlesUnicodeAndEmptyPasswords() throws {
        for password in ["", "pässwörd", "🔑🔑", "a\u{0}b"] {
            let stored = try hasher.hash(password)
            #expect(hasher.verify(password, against: stored))
        }
        #expect(!hasher.verify("a", against: try hasher.hash("a\u{0}b")))
    }

    @Test func writesTheSelfDescribingFormat() throws {
        let fields = try hasher.hash("secret").split(separator: "$", omittingEmptySubsequences: false)
        #expect(fields.count == 6)
        #expect(fields[0] == "scrypt")
        #expect(fields[1] == "1024" && fields[2] == "8" && fields[3] == "1")
        #expect(Base64URL.decode(String(fields[4]))?.count == 16)
        #expect(Base64URL.decode(String(fields[5]))?.count == 32)
    }

    @Test func saltsEveryHash() throws {
        #expect(try hasher.hash("same") != hasher.hash("same"))
    }

    @Test func verifyUsesTheParametersInTheHash() throws {
        let stored = try PasswordHasher(parameters: .init(n: 2048, r: 4, p: 2)).hash("pw")
        #expect(stored.hasPrefix("scrypt$2048$4$2$"))
        #expect(hasher.verify("pw", against: stored))
        #expect(hasher.needsRehash(stored))
        #expect(!hasher.needsRehash(try hasher.hash("pw")))
    }

    @Test(arguments: [
        "", "scrypt", "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA", "bcrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey,
        "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey + "$extra", "scrypt$1024$8$1$!!!$" + validKey,
        "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA", "scrypt$1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey + "==",
        "scrypt$+1024$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey, "scrypt$-1$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey,
        "scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey, "scrypt$0$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey,
        "scrypt$1024$0$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey, "scrypt$1024$8$0$AAAAAAAAAAAAAAAAAAAAAA$" + validKey,
        "scrypt$99999999999999999999$8$1$AAAAAAAAAAAAAAAAAAAAAA$" + validKey,
        "scrypt$1024$8$1$" + String(repeating: "A", count: 100) + "$" + validKey,
    ])
    func malformedHashesDoNotVerify(encoded: String) {
        #expect(!hasher.verify("pw", against: encoded))
        #expect(hasher.needsRehash(encoded))
    }

    /// Parameters that would take gigabytes or minutes are refused before any work is done.
    @Test(arguments: [
        (UInt64(1) << 21, UInt64(1), UInt64(1)), (UInt64(1) << 30, 8, 1), (UInt64(1) << 20, 8, 1),
        (1024, 4096, 1), (1024, 8, 1 << 20), (16, 1, 1 << 30), (16384, 8, 1000), (2, 1, UInt64.max),
        (16384, UInt64.max, 1),
    ])
    func absurdParametersAreRefused(n: UInt64, r: UInt64, p: UInt64) throws {
        let parameters = PasswordHasher.Parameters(n: n, r: r, p: p)
        #expect(!parameters.isAcceptable)
        let encoded = "scrypt$\(n)$\(r)$\(p)$AAAAAAAAAAAAAAAAAAAAAA$" + validKey
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(!hasher.verify("pw", against: encoded)) }
        #expect(elapsed < .seconds(1), "refused after \(elapsed): work was done")  // such work takes minutes
        let error = #expect(throws: CryptoError.self) { try PasswordHasher(parameters: parameters).hash("pw") }
        #expect(error?.code == .invalidInput)
    }

    @Test func defaultAndTestParametersAreAcceptable() {
        #expect(PasswordHasher.Parameters.default == .init(n: 16384, r: 8, p: 1))
        #expect(PasswordHasher.Parameters.default.isAcceptable)
        #expect(PasswordHasher.Parameters.fastForTests.isAcceptable)
        #expect(PasswordHasher.Parameters(n: 1 << 20, r: 2, p: 1).isAcceptable)
    }

    @Test(.enabled(if: Benchmark.isEnabled))
    func defaultParametersCost() throws {
        let hasher = PasswordHasher()
        let stored = try hasher.hash("benchmark")
        let rate = try Benchmark.measure("scrypt default hash", iterations: 20) { _ = try hasher.hash("benchmark") }
        Benchmark.measure("scrypt default verify", iterations: 20) { _ = hasher.verify("benchmark", against: stored) }
        let fast = PasswordHasher(parameters: .fastForTests)
        let fastStored = try fast.hash("pw")
        Benchmark.expectNoLeak("scrypt fast hash, verify, malformed", iterations: 3_000) {
            _ = try? fast.hash("pw")
            _ = fast.verify("pw", against: fastStored)
            _ = fast.verify("pw", against: "scrypt$3$8$1$AAAA$" + validKey)
        }
        #expect(rate > 2, "a default hash should take well under 500 ms")
    }
}
