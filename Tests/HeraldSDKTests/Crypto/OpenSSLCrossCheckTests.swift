import HeraldCrypto
import HeraldModel
import Testing

@testable import HeraldSDK

/// The SDK's Swift SHA-256 and HMAC agree with OpenSSL's (the server's, through HeraldCrypto) on many inputs,
/// and a request the SDK signs is one the server's check accepts.
@Suite struct OpenSSLCrossCheckTests {
    @Test func digestsAndMacsAgreeWithOpenSSL() {
        var state: UInt64 = 0x1234_5678
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for length in [0, 1, 31, 32, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4097] {
            let message = (0..<length).map { _ in next() }
            let key = (0..<(length % 150)).map { _ in next() }
            #expect(HeraldSDK.SHA256.hash(message) == HeraldCrypto.SHA256.hash(message), "length \(length)")
            #expect(
                HeraldSDK.HMACSHA256.authenticationCode(for: message, key: key)
                    == HeraldCrypto.HMACSHA256.authenticationCode(for: message, key: key), "length \(length)")
        }
    }

    @Test func signedHeadersVerifyWithTheServersHMAC() {
        let credential = Credential(keyID: "k1", secret: "s3cr3t-ÄÖ")
        let body = Array(#"{"events":[]}"#.utf8)
        let headers = RequestSigner(credential: credential).headers(
            method: "POST", path: "/api/v1/events", query: [("b", "2 3"), ("a", "1")], body: body,
            unixTime: 1_714_555_800)
        #expect(headers.map(\.name) == ["X-Herald-Key-Id", "X-Herald-Timestamp", "X-Herald-Signature"])
        #expect(headers[0].value == "k1" && headers[1].value == "1714555800")
        // The server's side: the raw target as received, OpenSSL's HMAC.
        let message = DeviceRequestSignature.message(
            method: "POST", target: "/api/v1/events?b=2%203&a=1", timestamp: "1714555800", body: body)
        #expect(
            String(decoding: message, as: UTF8.self) == "POST\n/api/v1/events\na=1&b=2%203\n1714555800\n{\"events\":[]}"
        )
        let expected = Hex.encode(
            HeraldCrypto.HMACSHA256.authenticationCode(for: message, key: Array(credential.secret.utf8)))
        #expect(headers[2].value == expected)
        #expect(headers[2].value.count == 64 && headers[2].value == headers[2].value.lowercased())
    }
}
