import Testing

@testable import HeraldCrypto

@Suite struct CryptoErrorTests {
    @Test func descriptionNamesCodeAndMessage() {
        let error = CryptoError(code: .invalidKey, message: "the text is not a PEM private key")
        #expect(error.description == "CryptoError(invalidKey): the text is not a PEM private key")
    }

    @Test func codesCompareByName() {
        #expect(CryptoError.Code.invalidKey == CryptoError.Code(rawValue: "invalidKey"))
        #expect(CryptoError.Code.invalidKey != .unsupportedKey)
        let all: Set<CryptoError.Code> = [
            .invalidKey, .unsupportedKey, .signingFailed, .decryptionFailed, .randomFailed, .invalidInput,
        ]
        #expect(all.count == 6)
    }

    @Test func keyErrorsNeverQuoteTheKey() throws {
        let corrupted = TestKeys.p256PKCS8.replacing("BG0wawIBAQQg", with: "BG0wawIBAQQh")
        let bodyOnly = String(TestKeys.p256PKCS8.split(separator: "\n")[1])
        for text in [corrupted, TestKeys.rsaPKCS8, TestKeys.p384PKCS8, TestKeys.p256Encrypted, bodyOnly] {
            let lines = text.split(separator: "\n")
            let secret = lines.count > 1 ? lines[1] : lines[0]
            let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: text) }
            #expect(error?.description.contains(secret.prefix(12)) == false)
        }
    }

    @Test func openSSLFailureClearsTheErrorQueue() {
        _ = try? P256PrivateKey(pemRepresentation: "garbage")
        #expect(OpenSSLErrorQueue.takeReason() == nil)
    }
}
