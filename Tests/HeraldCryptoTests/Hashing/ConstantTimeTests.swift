import Testing

@testable import HeraldCrypto

@Suite struct ConstantTimeTests {
    @Test func equalBytesAreEqual() {
        let bytes = SecureRandom.bytes(count: 32)
        #expect(ConstantTime.equals(bytes, bytes))
        #expect(ConstantTime.equals([], []))
    }

    @Test func anyDifferingByteMakesThemUnequal() {
        let bytes = SecureRandom.bytes(count: 32)
        for index in bytes.indices {
            var other = bytes
            other[index] ^= 0x01
            #expect(!ConstantTime.equals(bytes, other))
        }
    }

    @Test func differentLengthsAreUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
    }
}
