import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct HMACSHA256Tests {
    private static let longKey = [UInt8](repeating: 0xaa, count: 131)

    /// RFC 4231 §4, test cases 1–4, 6 and 7 (case 5 truncates the output).
    @Test(arguments: [
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
            Array(1...25), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            longKey, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            longKey,
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs"
                    + " to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func matchesRFC4231(key: [UInt8], message: [UInt8], mac: String) {
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: message, key: key)) == mac)
        #expect(Hex.encode(message.withUnsafeBytes { HMACSHA256.authenticationCode(for: $0, key: key) }) == mac)
    }

    @Test func emptyMessageAndEmptyKey() {
        // HMAC-SHA256("", "") from Python's hmac module.
        #expect(
            Hex.encode(HMACSHA256.authenticationCode(for: [], key: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// Keys around the 64-byte block boundary, against the `openssl mac` command.
    @Test(arguments: [1, 32, 63, 64, 65, 200])
    func matchesOpenSSLCommandAtBlockBoundaries(keyCount: Int) throws {
        let key = SecureRandom.bytes(count: keyCount)
        let message = SecureRandom.bytes(count: 200)
        let result = try OpenSSLCLI.run(
            ["mac", "-digest", "SHA256", "-macopt", "hexkey:\(Hex.encode(key))", "HMAC"],
            input: message)
        #expect(result.status == 0)
        let expected = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: message, key: key)) == expected.lowercased())
    }

    @Test func agreesAcrossThreads() async {
        let key = Array("business secret".utf8)
        let message = [UInt8](repeating: 0x42, count: 200)
        let expected = HMACSHA256.authenticationCode(for: message, key: key)
        let allEqual = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<2000).allSatisfy { _ in HMACSHA256.authenticationCode(for: message, key: key) == expected }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(allEqual)
    }

    @Test(.enabled(if: Benchmark.isEnabled))
    func throughputFor200ByteMessages() {
        let key = SecureRandom.bytes(count: 32)
        let message = SecureRandom.bytes(count: 200)
        var sink: UInt8 = 0
        let rate = Benchmark.measure("HMAC-SHA256 200 B", iterations: 1_000_000) {
            sink ^= HMACSHA256.authenticationCode(for: message, key: key)[0]
        }
        _ = message.withUnsafeBytes { buffer in
            Benchmark.measure("HMAC-SHA256 200 B (buffer)", iterations: 1_000_000) {
                sink ^= HMACSHA256.authenticationCode(for: buffer, key: key)[0]
            }
        }
        let longKey = SecureRandom.bytes(count: 100)
        Benchmark.expectNoLeak("HMAC-SHA256 and SHA-256", iterations: 1_000_000) {
            sink ^= HMACSHA256.authenticationCode(for: message, key: longKey)[0] ^ SHA256.hash(message)[0]
        }
        withExtendedLifetime(sink) {}
        #expect(rate > 500_000, "the API verifies one HMAC per request; aim above 500k/s")
    }
}
