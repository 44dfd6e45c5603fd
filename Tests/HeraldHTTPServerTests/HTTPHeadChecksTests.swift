import HeraldHTTPServer
import Testing

/// The pure checks behind the server's head handling (`HTTPHeadChecks`), on hand-made input.
@Suite("HTTP head checks")
struct HTTPHeadChecksTests {
    @Test(arguments: [
        ("0", 0), ("42", 42), (" 7\t", 7), ("9223372036854775807", Int.max), ("9223372036854775808", Int.max),
        ("18446744073709551616", Int.max), (String(repeating: "9", count: 400), Int.max),
    ])
    func contentLengthsAreReadWithoutOverflow(_ text: String, _ expected: Int) {
        #expect(HTTPHeadChecks.contentLength(text) == expected)
    }

    @Test(arguments: ["", " ", "-1", "+1", "1 2", "0x10", "1.0", "١٢"])
    func contentLengthsThatAreNotDigitsAreNil(_ text: String) {
        #expect(HTTPHeadChecks.contentLength(text) == nil)
    }

    @Test func controlBytesAreFoundButTabIsAllowed() {
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { HTTPHeadChecks.hasControlBytes($0) } }
        #expect(!check(Array("Bearer abc\tdef ~".utf8)))
        #expect(check([0x61, 0x00]))
        #expect(check([0x1B]))
        #expect(check([0x7F]))
        #expect(!check([0xC3, 0xA9]))  // UTF-8 is not a control byte
    }

    /// The head `raw` as libmicrohttpd 0.9.75 leaves it (`HTTPHeadChecks.InPlace`) and its fields' placements.
    static func parsedInPlace(_ raw: String) -> (head: [UInt8], fields: [HTTPHeadChecks.FieldPlacement]) {
        let parsed = HTTPHeadChecks.InPlace(Array(raw.utf8))
        return (parsed?.head ?? [], parsed?.fields ?? [])
    }

    static func layout(_ raw: String) -> HTTPHeadChecks.Layout {
        let (head, fields) = parsedInPlace(raw)
        return head.withUnsafeBytes { HTTPHeadChecks.layout(of: $0, fields: fields) }
    }

    @Test func headsWithoutANULAreClean() {
        #expect(Self.layout("GET / HTTP/1.1\r\nHost: a\r\nX: y\r\n\r\n") == .clean)
        #expect(Self.layout("GET / HTTP/1.1\nHost: a\nX:\n\n") == .clean)
        #expect(Self.layout("GET / HTTP/1.1\r\nHost:   a  \r\nX:\t\r\n\r\n") == .clean)
        #expect(Self.layout("GET / HTTP/1.1\r\nHost: a\n\r\n") == .clean)
    }

    @Test func aNULWithBytesAfterItIsFound() {
        #expect(Self.layout("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\0junk\r\n\r\n") == .hiddenBytes)
        #expect(Self.layout("GET / HTTP/1.1\r\nAuthorization: Bearer x\0junk\r\nHost: a\r\n\r\n") == .hiddenBytes)
        #expect(Self.layout("GET / HTTP/1.1\r\nAuthorization: Bearer x\0\r\nHost: a\r\n\r\n") == .hiddenBytes)
        #expect(Self.layout("GET / HTTP/1.1\r\nHost: a\r\nX: y\0\r\n\r\n") == .hiddenBytes)
        // A line libmicrohttpd finds no colon in (it refuses the request itself): its bytes belong to no field.
        #expect(Self.layout("GET / HTTP/1.1\r\nHost: a\r\nHo\0st: a\r\n\r\n") == .hiddenBytes)
    }

    @Test func fieldsOutOfPlaceAreSaidSo() {
        let (head, fields) = Self.parsedInPlace("GET / HTTP/1.1\r\nHost: a\r\nX: y\r\n\r\n")
        var moved = fields
        moved[1].value = head.count + 10
        #expect(head.withUnsafeBytes { HTTPHeadChecks.layout(of: $0, fields: moved) } == .notInPlace)
        #expect(head.withUnsafeBytes { HTTPHeadChecks.layout(of: $0, fields: fields.reversed()) } == .notInPlace)
    }

    @Test func framingIsRefusedWhenInDoubt() {
        #expect(HTTPHeadChecks.framingError(contentLengths: ["1", "2"], transferEncodings: []) != nil)
        #expect(HTTPHeadChecks.framingError(contentLengths: ["1"], transferEncodings: []) == nil)
        #expect(HTTPHeadChecks.framingError(contentLengths: [], transferEncodings: ["Chunked"]) == nil)
        #expect(
            HTTPHeadChecks.framingError(contentLengths: ["1"], transferEncodings: ["chunked"])?.status == .badRequest)
        #expect(HTTPHeadChecks.framingError(contentLengths: [], transferEncodings: ["gzip"])?.status == .notImplemented)
    }
}
