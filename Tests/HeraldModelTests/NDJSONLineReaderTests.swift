import HeraldModel
import Testing

@Suite("NDJSON line reader")
struct NDJSONLineReaderTests {
    /// Every line `input` yields when fed in pieces of `piece` bytes.
    static func lines(_ input: [UInt8], piece: Int, max: Int = 64) -> [NDJSONLineReader.Line] {
        var reader = NDJSONLineReader(maxLineBytes: max)
        var lines: [NDJSONLineReader.Line] = []
        var offset = 0
        while offset < input.count {
            let end = min(offset + piece, input.count)
            reader.feed(input[offset..<end]) { lines.append($0) }
            offset = end
        }
        reader.finish { lines.append($0) }
        return lines
    }

    static func text(_ number: Int, _ text: String) -> NDJSONLineReader.Line {
        .text(number: number, bytes: Array(text.utf8))
    }

    @Test func splitsLinesWhateverThePiecesAre() {
        let input = Array("{\"a\":1}\n{\"b\":2}\r\n\n   \n\t\r\n{\"c\":3}".utf8)
        let expected = [Self.text(1, #"{"a":1}"#), Self.text(2, #"{"b":2}"#), Self.text(6, #"{"c":3}"#)]
        for piece in 1...input.count {
            #expect(Self.lines(input, piece: piece) == expected, "pieces of \(piece)")
        }
    }

    @Test func aFinalNewlineAddsNoLine() {
        #expect(Self.lines(Array("x\n".utf8), piece: 10) == [Self.text(1, "x")])
        #expect(Self.lines(Array("x\ny\n\n".utf8), piece: 10) == [Self.text(1, "x"), Self.text(2, "y")])
        #expect(Self.lines([], piece: 10).isEmpty)
        #expect(Self.lines(Array("\n\n\n".utf8), piece: 1).isEmpty)
    }

    @Test func aLongLineIsReportedOnceAndTheNextOneIsRead() {
        let long = String(repeating: "x", count: 1_000)
        let input = Array("short\n\(long)\nafter\n".utf8)
        for piece in [1, 7, 64, 65, 2_000] {
            #expect(
                Self.lines(input, piece: piece, max: 64) == [
                    Self.text(1, "short"), .tooLong(number: 2, length: 1_000), Self.text(3, "after"),
                ], "pieces of \(piece)")
        }
        // A line of exactly the limit is a line; a carriage return before its newline doesn't count.
        let exact = String(repeating: "y", count: 64)
        #expect(Self.lines(Array("\(exact)\r\n".utf8), piece: 3) == [Self.text(1, exact)])
        #expect(Self.lines(Array("\(exact)z".utf8), piece: 3) == [.tooLong(number: 1, length: 65)])
        #expect(
            Self.lines(Array("\(long)\r\nx".utf8), piece: 7) == [.tooLong(number: 1, length: 1_000), Self.text(2, "x")])
    }

    @Test func bytesArePassedAsTheyAre() {
        // Not UTF-8, NUL, a lone carriage return inside: the JSON parser judges them, not the reader.
        let input: [UInt8] = [0xFF, 0x00, 0x0D, 0x41, 0x0A, 0xC3, 0x28]
        #expect(
            Self.lines(input, piece: 2) == [
                .text(number: 1, bytes: [0xFF, 0x00, 0x0D, 0x41]), .text(number: 2, bytes: [0xC3, 0x28]),
            ])
    }

    @Test func countsTheLinesRead() {
        var reader = NDJSONLineReader(maxLineBytes: 10)
        reader.feed(Array("a\n\nb\nc".utf8)) { _ in }
        #expect(reader.linesRead == 3)
        reader.finish { _ in }
        #expect(reader.linesRead == 4)
    }

    @Test func aHugeLineIsNeverHeld() {
        // 64 MB of one line, fed in 64 KiB pieces: reported once, as long as it was.
        var reader = NDJSONLineReader(maxLineBytes: 1_024)
        let piece = [UInt8](repeating: 0x61, count: 65_536)
        var lines: [NDJSONLineReader.Line] = []
        for _ in 0..<1_024 { reader.feed(piece) { lines.append($0) } }
        reader.feed(Array("\nok".utf8)) { lines.append($0) }
        reader.finish { lines.append($0) }
        #expect(lines == [.tooLong(number: 1, length: 64 << 20), Self.text(2, "ok")])
    }
}
