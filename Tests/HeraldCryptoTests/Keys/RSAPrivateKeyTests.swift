import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct RSAPrivateKeyTests {
    private let message = Array("herald".utf8)

    /// `printf herald | openssl dgst -sha256 -sign rsa-pkcs8.pem | xxd -p` for ``TestKeys/rsaPKCS8``: PKCS#1 v1.5
    /// signatures are deterministic, so this is a known answer.
    private static let expectedSignature =
        "9cc414ff9a56ac303cc62aa650b97c36a93c442986c14481b50377a6b2d09645bba588458dd038a279664266f1754b5a"
        + "4e4cc476d4c3287f26c734effd8f99a1c8165e3a8b9f6093728aaa4b35778a2f07635cba7d75bbdd82be80e1bfa019a7"
        + "fe5e60c9b24d72c901ebe5b01961684d3cec30fae52fcb6561048b76f5ad8e57122e623384837f0ab269ee48f67ef830"
        + "2df5b0a283338a684ea901546d6270dddcc3957ca08621eb6293c99fa996671c8aabd2f132ff32dc8e3e29b4d8dbccf2"
        + "cad9e4ed044e2d8870f0591ac8097038445c1cc46a892887bd399bdd19f16daf1a2cc33b8e71f1efd9dfff8184578a23"
        + "71c8ccc828369f20d0bb45f16fc12cdc"

    @Test(arguments: [TestKeys.rsaPKCS8, TestKeys.rsaPKCS1])
    func matchesTheOpenSSLCommandsSignature(text: String) throws {
        let key = try RSAPrivateKey(pemRepresentation: text)
        #expect(key.bits == 2048)
        #expect(Hex.encode(try key.signatureRS256(for: message)) == Self.expectedSignature)
        #expect(key.publicKey.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.rsaPublic)
    }

    @Test func writesPKCS8() throws {
        let key = try RSAPrivateKey(pemRepresentation: TestKeys.rsaPKCS1)
        #expect(key.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.rsaPKCS8)
    }

    @Test func readsThePrivateKeyOfAServiceAccountJSON() throws {
        let json = try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "client_email": "herald@example.iam.gserviceaccount.com",
            "private_key": TestKeys.rsaPKCS8 + "\n",
        ])
        #expect(String(decoding: json, as: UTF8.self).contains(#"\n"#))
        let decoded = try JSONSerialization.jsonObject(with: json) as? [String: String]
        let key = try RSAPrivateKey(pemRepresentation: try #require(decoded?["private_key"]))
        #expect(key.publicKey.isValidSignatureRS256(try key.signatureRS256(for: message), for: message))
    }

    @Test(arguments: [TestKeys.p256PKCS8, TestKeys.p256SEC1, TestKeys.ed25519, TestKeys.rsa1024])
    func refusesOtherKeysAndShortKeys(text: String) {
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pemRepresentation: text) }
        #expect(error?.code == .unsupportedKey)
    }

    @Test(arguments: ["", "garbage", TestKeys.rsaPublic, String(TestKeys.rsaPKCS8.dropLast(100))])
    func refusesGarbage(text: String) {
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pemRepresentation: text) }
        #expect(error?.code == .invalidKey)
    }

    @Test func generatedKeysSignAndRoundTrip() throws {
        let key = RSAPrivateKey.generate()
        #expect(key.bits == 2048)
        let signature = try key.signatureRS256(for: message)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidSignatureRS256(signature, for: message))
        let reread = try RSAPrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(try reread.signatureRS256(for: message) == signature)
    }

    @Test func signsFromManyThreadsAtOnce() async throws {
        let key = try RSAPrivateKey(pemRepresentation: TestKeys.rsaPKCS8)
        let message = self.message
        let expected = Self.expectedSignature
        let allEqual = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (0..<50).allSatisfy { _ in (try? key.signatureRS256(for: message)).map(Hex.encode) == expected }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(allEqual)
    }

    @Test(.enabled(if: Benchmark.isEnabled))
    func signingThroughputAndMemory() throws {
        let key = try RSAPrivateKey(pemRepresentation: TestKeys.rsaPKCS8)
        let rate = try Benchmark.measure("RS256 sign (2048)", iterations: 2_000) {
            _ = try key.signatureRS256(for: message)
        }
        let signature = try key.signatureRS256(for: message)
        try Benchmark.expectNoLeak("RS256 sign and verify", iterations: 5_000) {
            _ = try key.signatureRS256(for: message)
            _ = key.publicKey.isValidSignatureRS256(signature, for: message)
            _ = key.publicKey.isValidSignatureRS256(signature, for: [])
        }
        Benchmark.expectNoLeak("RSA parse, write and refusals", iterations: 5_000) {
            for text in [TestKeys.rsaPKCS1, TestKeys.rsa1024, TestKeys.p256PKCS8, "garbage"] {
                _ = (try? RSAPrivateKey(pemRepresentation: text))?.pemRepresentation
            }
            _ = try? RSAPublicKey(pemRepresentation: TestKeys.p256Public)
        }
        #expect(rate > 200)
    }
}
