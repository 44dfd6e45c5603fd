import HeraldStore
import Testing

@testable import HeraldPostgres

/// Decoding and encoding without a server: the edges a live round trip might not reach.
@Suite("PostgreSQL value coding")
struct PostgresValueDecoderTests {
    static func decode(_ text: String, _ type: PostgresType) -> SQLValue {
        Array(text.utf8).withUnsafeBufferPointer { PostgresValueDecoder.decode($0, type: type) }
    }

    @Test func integersParseToTheEdges() {
        #expect(Self.decode("9223372036854775807", .int8) == .integer(.max))
        #expect(Self.decode("-9223372036854775808", .int8) == .integer(.min))
        #expect(Self.decode("0", .int2) == .integer(0))
        #expect(Self.decode("-17", .int4) == .integer(-17))
        // Out of range or not digits: kept as text rather than wrapped or zeroed.
        #expect(Self.decode("9223372036854775808", .int8) == .text("9223372036854775808"))
        #expect(Self.decode("-", .int8) == .text("-"))
        #expect(Self.decode("12a", .int8) == .text("12a"))
    }

    @Test func floatsBoolsAndBytes() {
        #expect(Self.decode("0.1", .float8) == .real(0.1))
        #expect(Self.decode("-Infinity", .float8) == .real(-.infinity))
        #expect(Self.decode("5e-324", .float8) == .real(.leastNonzeroMagnitude))
        #expect(Self.decode("123.4500", .numeric) == .real(123.45))
        #expect(Self.decode("t", .bool) == .integer(1))
        #expect(Self.decode("f", .bool) == .integer(0))
        #expect(Self.decode("\\x00ff10", .bytea) == .blob([0, 255, 16]))
        #expect(Self.decode("\\x", .bytea) == .blob([]))
        // The older escape output.
        #expect(Self.decode("a\\\\b\\000\\377", .bytea) == .blob([97, 92, 98, 0, 255]))
        #expect(Self.decode("", .void) == .null)
        #expect(Self.decode("x", PostgresType(oid: 114)) == .text("x"))
    }

    @Test func textFormatLiteralsReadBackExactly() {
        for number in [0.1, 1.0 / 3, -2.5e-300, Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude] {
            #expect(Double(SQLArray.realLiteral(number)) == number)
        }
        #expect(SQLArray.realLiteral(.infinity) == "Infinity")
        #expect(SQLArray.realLiteral(-.infinity) == "-Infinity")
        #expect(SQLArray.realLiteral(.nan) == "NaN")
    }

    @Test func parametersAreBinaryWhenTheTypesMatchAndTextOtherwise() throws {
        let values: [SQLValue] = [.integer(1), .real(2), .text("t"), .blob([0]), .null]
        let matching = try PostgresParameters(values, types: values.map(PostgresType.of))
        #expect(matching.formats == [1, 1, 1, 1, 0])
        #expect(matching.lengths == [8, 8, 1, 1, 0])
        let unknown = try PostgresParameters(values, types: Array(repeating: .unspecified, count: values.count))
        #expect(unknown.formats == [0, 0, 0, 0, 0])
        #expect(unknown.lengths == [1, 3, 1, 4, 0])  // "1", "2.0", "t", "\x00"
        #expect(throws: PostgresError.self) { try PostgresParameters([.text("a\u{0}b")], types: [.unspecified]) }
    }

    @Test func connectionStringComplaintsHideWhatTheyQuote() throws {
        #expect(
            PostgresConnectionSettings.hidingQuotes("invalid percent-encoded token: \"p%zzsecret\"")
                == "invalid percent-encoded token: \"…\"")
        let settings = try PostgresConnectionSettings(url: "postgres://u:hunter22@localhost/db", parameters: [:])
        #expect(settings.redacting("failed for hunter22 at host") == "failed for [password] at host")
        let keywords = try PostgresConnectionSettings(url: "host=/tmp dbname=x password=letmein", parameters: [:])
        #expect(keywords.redacting("letmein!") == "[password]!")
    }
}
