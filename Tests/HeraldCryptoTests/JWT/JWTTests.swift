import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct JWTTests {
    private let header = #"{"alg":"ES256","kid":"ABC123DEFG"}"#
    private let claims = #"{"iss":"DEF123GHIJ","iat":1700000000}"#

    /// The three parts of a compact JWS, decoded; fails the test if any is not base64url.
    private func parts(of token: String) throws -> (header: String, claims: String, signature: [UInt8]) {
        let fields = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(fields.count == 3)
        let header = try #require(Base64URL.decode(fields[0]))
        let claims = try #require(Base64URL.decode(fields[1]))
        let signature = try #require(Base64URL.decode(fields[2]))
        return (String(decoding: header, as: UTF8.self), String(decoding: claims, as: UTF8.self), signature)
    }

    @Test func signsES256() throws {
        let key = try P256PrivateKey(pemRepresentation: TestKeys.p256PKCS8)
        let token = try JWT.signES256(headerJSON: header, claimsJSON: claims, key: key)
        let decoded = try parts(of: token)
        #expect(decoded.header == header)
        #expect(decoded.claims == claims)
        #expect(decoded.signature.count == 64)
        let signingInput = Array(token[..<token.lastIndex(of: ".")!].utf8)
        #expect(key.publicKey.isValidSignature(decoded.signature, for: signingInput))
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
    }

    @Test func signsRS256() throws {
        let key = try RSAPrivateKey(pemRepresentation: TestKeys.rsaPKCS8)
        let rsHeader = #"{"alg":"RS256","typ":"JWT"}"#
        let rsClaims =
            #"{"iss":"herald@example.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/"#
            + #"firebase.messaging","aud":"https://oauth2.googleapis.com/token","iat":1700000000,"exp":1700003600}"#
        let token = try JWT.signRS256(headerJSON: rsHeader, claimsJSON: rsClaims, key: key)
        let decoded = try parts(of: token)
        #expect(decoded.header == rsHeader)
        #expect(decoded.claims == rsClaims)
        #expect(decoded.signature.count == 256)
        let signingInput = Array(token[..<token.lastIndex(of: ".")!].utf8)
        #expect(key.publicKey.isValidSignatureRS256(decoded.signature, for: signingInput))
        #expect(try JWT.signRS256(headerJSON: rsHeader, claimsJSON: rsClaims, key: key) == token)
    }

    @Test func es256TokenVerifiesWithOpenSSLCommand() throws {
        _ = try OpenSSLCLI.tool.require()
        let key = P256PrivateKey.generate()
        let token = try JWT.signES256(headerJSON: header, claimsJSON: claims, key: key)
        let signingInput = Array(token[..<token.lastIndex(of: ".")!].utf8)
        let signature = try parts(of: token).signature
        try OpenSSLCLI.withTemporaryDirectory { directory in
            let publicKey = directory.appendingPathComponent("public.pem")
            let signatureFile = directory.appendingPathComponent("signature.der")
            try Data(key.publicKey.pemRepresentation.utf8).write(to: publicKey)
            try Data(ECDSADER.encode(raw: signature)).write(to: signatureFile)
            let result = try OpenSSLCLI.run(
                ["dgst", "-sha256", "-verify", publicKey.path, "-signature", signatureFile.path], input: signingInput)
            #expect(result.status == 0)
        }
    }

    @Test func keepsNonASCIIClaimsByteForByte() throws {
        let key = P256PrivateKey.generate()
        let unicodeClaims = #"{"sub":"Zoë 🚀"}"#
        let token = try JWT.signES256(headerJSON: header, claimsJSON: unicodeClaims, key: key)
        #expect(try parts(of: token).claims == unicodeClaims)
    }
}
