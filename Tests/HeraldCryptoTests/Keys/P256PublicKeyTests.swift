import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct P256PublicKeyTests {
    private let message = Array("message".utf8)

    @Test func readsAndWritesSubjectPublicKeyInfo() throws {
        let key = try P256PublicKey(pemRepresentation: TestKeys.p256Public)
        #expect(key.pemRepresentation.trimmingCharacters(in: .newlines) == TestKeys.p256Public)
    }

    @Test func verifiesSignaturesOfTheMatchingPrivateKey() throws {
        let publicKey = try P256PublicKey(pemRepresentation: TestKeys.p256Public)
        let privateKey = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let signature = try privateKey.signature(for: message)
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!P256PrivateKey.generate().publicKey.isValidSignature(signature, for: message))
    }

    @Test func rejectsMalformedSignatures() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let signature = try key.signature(for: message)
        let publicKey = key.publicKey
        #expect(!publicKey.isValidSignature([], for: message))
        #expect(!publicKey.isValidSignature(Array(signature.prefix(63)), for: message))
        #expect(!publicKey.isValidSignature(signature + [0], for: message))
        #expect(!publicKey.isValidSignature(ECDSADER.encode(raw: signature), for: message))
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message))
        #expect(!publicKey.isValidSignature([UInt8](repeating: 0xff, count: 64), for: message))
        for index in [0, 31, 32, 63] {
            var tampered = signature
            tampered[index] ^= 0x01
            #expect(!publicKey.isValidSignature(tampered, for: message))
        }
    }

    @Test func verifiesASignatureMadeByOpenSSLCommand() throws {
        _ = try OpenSSLCLI.tool.require()
        let signature = try OpenSSLCLI.withTemporaryDirectory { directory in
            let privateKey = directory.appendingPathComponent("key.pem")
            try Data(TestKeys.p256PKCS8.utf8).write(to: privateKey)
            return try OpenSSLCLI.run(["dgst", "-sha256", "-sign", privateKey.path], input: message)
        }
        #expect(signature.status == 0)
        let raw = try #require(ECDSADER.decode(signature.output))
        let publicKey = try P256PublicKey(pemRepresentation: TestKeys.p256Public)
        #expect(publicKey.isValidSignature(raw, for: message))
    }

    @Test func refusesOtherKeys() throws {
        let rsa = #expect(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: TestKeys.rsaPublic) }
        #expect(rsa?.code == .unsupportedKey)
        let p384 = try P256PublicKey.publicPEM(ofPrivate: TestKeys.p384PKCS8)
        let curve = #expect(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: p384) }
        #expect(curve?.code == .unsupportedKey)
        for text in ["", "garbage", TestKeys.p256PKCS8] {
            let error = #expect(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: text) }
            #expect(error?.code == .invalidKey)
        }
    }
}

extension P256PublicKey {
    /// The SubjectPublicKeyInfo PEM of any private key, via the `openssl` command.
    fileprivate static func publicPEM(ofPrivate pem: String) throws -> String {
        let result = try OpenSSLCLI.run(["pkey", "-pubout"], input: Array(pem.utf8))
        try #require(result.status == 0)
        return String(decoding: result.output, as: UTF8.self)
    }
}
