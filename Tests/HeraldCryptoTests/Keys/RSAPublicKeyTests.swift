import Testing

@testable import HeraldCrypto

@Suite struct RSAPublicKeyTests {
    private let message = Array("herald".utf8)

    @Test func readsAndWritesSubjectPublicKeyInfo() throws {
        let key = try RSAPublicKey(pemRepresentation: TestKeys.rsaPublic)
        #expect(key.bits == 2048)
        #expect(key.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.rsaPublic)
    }

    @Test func verifiesOnlyMatchingSignatures() throws {
        let publicKey = try RSAPublicKey(pemRepresentation: TestKeys.rsaPublic)
        let signature = try RSAPrivateKey(pemRepresentation: TestKeys.rsaPKCS8).signatureRS256(for: message)
        #expect(publicKey.isValidSignatureRS256(signature, for: message))
        #expect(!publicKey.isValidSignatureRS256(signature, for: message + [0]))
        #expect(!publicKey.isValidSignatureRS256([], for: message))
        #expect(!publicKey.isValidSignatureRS256(Array(signature.dropLast()), for: message))
        var tampered = signature
        tampered[100] ^= 0x01
        #expect(!publicKey.isValidSignatureRS256(tampered, for: message))
    }

    @Test func refusesOtherKeys() {
        let ec = #expect(throws: CryptoError.self) { try RSAPublicKey(pemRepresentation: TestKeys.p256Public) }
        #expect(ec?.code == .unsupportedKey)
        let garbage = #expect(throws: CryptoError.self) { try RSAPublicKey(pemRepresentation: "garbage") }
        #expect(garbage?.code == .invalidKey)
    }
}
