import Testing

@testable import HeraldCrypto

@Suite struct HexTests {
    @Test func encodesLowercase() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]) == "00017f80abff")
    }

    @Test func decodesEitherCase() {
        #expect(Hex.decode("deadBEEF") == [0xde, 0xad, 0xbe, 0xef])
        #expect(Hex.decode("") == [])
    }

    @Test(arguments: ["abc", "0g", "zz", " 00", "0x00", "00 ", "é0"])
    func rejectsMalformedText(text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test func roundTripsEveryByteValue() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
    }
}
