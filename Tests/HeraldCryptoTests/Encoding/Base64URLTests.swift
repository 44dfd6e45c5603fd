import Foundation
import Testing

@testable import HeraldCrypto

@Suite struct Base64URLTests {
    /// RFC 4648 §10, without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func encodesRFC4648Vectors(text: String, expected: String) {
        #expect(Base64URL.encode(text.utf8) == expected)
        #expect(Base64URL.decode(expected) == Array(text.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
    }

    @Test func acceptsCorrectPadding() {
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
    }

    @Test(arguments: ["Z", "Zg=", "Zg===", "Z===", "+_8", "/_8", "Zm9v\n", " Zm9v", "Zm=v", "Zh", "Zm9=", "=", "é"])
    func rejectsNonCanonicalText(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func matchesFoundationForRandomData() {
        for count in 0..<100 {
            let bytes = SecureRandom.bytes(count: count)
            let foundation = Data(bytes).base64EncodedString()
                .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(Base64URL.decode(foundation) == bytes)
        }
    }
}
