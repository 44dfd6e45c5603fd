import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct P256PrivateKeyTests {
    private let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)

    @Test func readsPKCS8AsInAppleP8Files() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        #expect(key.publicKey.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.p256Public)
    }

    @Test func readsSEC1() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256SEC1)
        #expect(key.publicKey.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.p256Public)
    }

    @Test func writesPKCS8() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256SEC1)
        #expect(key.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.p256PKCS8)
    }

    @Test(arguments: [
        "\n\n  " + TestKeys.p256PKCS8 + "\n\t ",
        TestKeys.p256PKCS8.replacing("\n", with: "\r\n") + "\r\n",
        TestKeys.p256PKCS8.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"),
        TestKeys.p256PKCS8.replacing("\n", with: "\\n"),
        "Bag Attributes\nfriendlyName: apns\n" + TestKeys.p256PKCS8,
    ])
    func toleratesWhitespaceAndLineEnds(text: String) throws {
        let key = try P256PrivateKey(pemRepresentation: text)
        #expect(key.publicKey.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.p256Public)
    }

    @Test(arguments: [
        TestKeys.p384PKCS8, TestKeys.rsaPKCS8, TestKeys.rsaPKCS1, TestKeys.ed25519, TestKeys.p256Encrypted,
    ])
    func refusesOtherKindsOfKey(text: String) {
        let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: text) }
        #expect(error?.code == .unsupportedKey)
    }

    @Test(arguments: [
        "", "garbage", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", TestKeys.p256Public,
        String(TestKeys.p256PKCS8.dropLast(40)), TestKeys.p256PKCS8.replacing("BG0wawIBAQQg", with: "BG0wawIBAQQh"),
        String(repeating: "A", count: 2 << 20),
    ])
    func refusesGarbage(text: String) {
        let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: text) }
        #expect(error?.code == .invalidKey)
    }

    @Test func signaturesAre64BytesAndVerify() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        for _ in 0..<50 {
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(signature, for: message))
        }
        let empty = try key.signature(for: [])
        #expect(key.publicKey.isValidSignature(empty, for: []))
        #expect(!key.publicKey.isValidSignature(empty, for: [0]))
    }

    @Test func signaturesAreRandomised() throws {
        let key = P256PrivateKey.generate()
        #expect(try key.signature(for: message) != key.signature(for: message))
    }

    @Test func generatedKeysRoundTripThroughPEM() throws {
        let key = P256PrivateKey.generate()
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reread = try P256PrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(reread.publicKey.pemRepresentation == key.publicKey.pemRepresentation)
        #expect(reread.publicKey.isValidSignature(try key.signature(for: message), for: message))
        #expect(P256PrivateKey.generate().publicKey.pemRepresentation != key.publicKey.pemRepresentation)
    }

    @Test func signatureVerifiesWithOpenSSLCommand() throws {
        _ = try OpenSSLCLI.tool.require()
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let signature = try key.signature(for: message)
        try OpenSSLCLI.withTemporaryDirectory { directory in
            let publicKey = directory.appendingPathComponent("public.pem")
            let signatureFile = directory.appendingPathComponent("signature.der")
            try Data(TestKeys.p256Public.utf8).write(to: publicKey)
            try Data(ECDSADER.encode(raw: signature)).write(to: signatureFile)
            let result = try OpenSSLCLI.run(
                ["dgst", "-sha256", "-verify", publicKey.path, "-signature", signatureFile.path], input: message)
            #expect(result.status == 0)
            #expect(String(decoding: result.output, as: UTF8.self).contains("Verified OK"))
        }
    }

    @Test func readsAKeyGeneratedByOpenSSLCommand() throws {
        let parameters = try OpenSSLCLI.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        let pkcs8 = try OpenSSLCLI.run(["pkcs8", "-topk8", "-nocrypt"], input: parameters.output)
        #expect(parameters.status == 0 && pkcs8.status == 0)
        let text = String(decoding: pkcs8.output, as: UTF8.self)
        let key = try P256PrivateKey(pemRepresentation: text)
        #expect(key.publicKey.isValidSignature(try key.signature(for: message), for: message))
        #expect(key.pemRepresentation == text)
    }

    @Test func signsFromManyThreadsAtOnce() async throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let message = self.message
        let allValid = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<200).allSatisfy { _ in
                        guard let signature = try? key.signature(for: message) else { return false }
                        return key.publicKey.isValidSignature(signature, for: message)
                    }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(allValid)
    }

    @Test(.enabled(if: Benchmark.isEnabled))
    func signingThroughput() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let rate = try Benchmark.measure("ES256 sign", iterations: 100_000) { _ = try key.signature(for: message) }
        let signature = try key.signature(for: message)
        Benchmark.measure("ES256 verify", iterations: 20_000) {
            _ = key.publicKey.isValidSignature(signature, for: message)
        }
        Benchmark.measure("P-256 PEM parse", iterations: 10_000) {
            _ = try? P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        }
        #expect(rate > 5_000)
    }

    /// Every OpenSSL object is freed, on success and on every failure path.
    @Test(.enabled(if: Benchmark.isEnabled))
    func doesNotLeak() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let signature = try key.signature(for: message)
        try Benchmark.expectNoLeak("ES256 sign", iterations: 100_000) { _ = try key.signature(for: message) }
        Benchmark.expectNoLeak("ES256 verify (valid, invalid, malformed)", iterations: 30_000) {
            _ = key.publicKey.isValidSignature(signature, for: message)
            _ = key.publicKey.isValidSignature(signature, for: [])
            _ = key.publicKey.isValidSignature([UInt8](repeating: 0xff, count: 64), for: message)
        }
        Benchmark.expectNoLeak("P-256 parse and write", iterations: 20_000) {
            let key = try? P256PrivateKey(pemRepresentation: TestKeys.p256SEC1)
            _ = key?.pemRepresentation
            _ = key?.publicKey.pemRepresentation
            _ = try? P256PublicKey(pemRepresentation: TestKeys.p256Public)
        }
        let refused = ["garbage", TestKeys.rsaPKCS8, TestKeys.p384PKCS8, TestKeys.p256Encrypted, TestKeys.p256Public]
        Benchmark.expectNoLeak("P-256 refusals", iterations: 20_000) {
            for text in refused { _ = try? P256PrivateKey(pemRepresentation: text) }
        }
        Benchmark.expectNoLeak("P-256 generate", iterations: 20_000) { _ = P256PrivateKey.generate() }
    }
}
