import Testing

@testable import HeraldCrypto

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 16, 32, 1000])
    func returnsTheRequestedCount(count: Int) {
        #expect(SecureRandom.bytes(count: count).count == count)
    }

    @Test func successiveDrawsDiffer() {
        let draws = Set((0..<100).map { _ in SecureRandom.bytes(count: 16) })
        #expect(draws.count == 100)
    }

    @Test func bytesLookUniform() {
        // 64 KiB: every byte value should appear, each roughly 256 times.
        var counts = [Int](repeating: 0, count: 256)
        for byte in SecureRandom.bytes(count: 65536) { counts[Int(byte)] += 1 }
        #expect(counts.min()! > 150)
        #expect(counts.max()! < 380)
    }

    @Test func fillWritesTheWholeBuffer() throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        try buffer.withUnsafeMutableBytes { try SecureRandom.fill($0) }
        #expect(buffer.filter { $0 == 0 }.count < 64)
    }
}
