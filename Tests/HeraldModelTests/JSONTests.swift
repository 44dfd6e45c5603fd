import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// The JSON parser and writer (RFC 8259): what they accept, what they refuse, and that they round-trip.
@Suite("JSON")
struct JSONTests {
    private func parse(_ text: String) throws -> JSON { try JSON.parse(text) }

    // MARK: - Valid texts

    static let validCases: [(String, JSON)] = [
        ("{}", .object([])), ("[]", .array([])), ("0", .int(0)), ("-0", .int(0)), ("1", .int(1)), ("-1", .int(-1)),
        ("true", .bool(true)), ("false", .bool(false)), ("null", .null), (#""""#, .string("")), (#""a""#, .string("a")),
        (" \t\r\n[ 1 , 2 ]\n ", .array([.int(1), .int(2)])), ("1.5", .double(1.5)), ("-1.5e3", .double(-1500)),
        ("1E2", .double(100)), ("1e-2", .double(0.01)), ("1E+2", .double(100)), ("0.0", .double(0)),
        ("-0.0", .double(0)),
        (
            #"{"a":{"b":[null,true,{"c":"d"}]}}"#,
            .object([("a", .object([("b", .array([.null, .bool(true), .object([("c", .string("d"))])]))]))])
        ),
        ("[[[[[]]]]]", .array([.array([.array([.array([.array([])])])])])),
        (#"{"":""}"#, .object([("", .string(""))])),
    ]

    @Test(arguments: validCases)
    func validTextsParse(text: String, expected: JSON) throws {
        #expect(try parse(text) == expected)
    }

    @Test func integersAndDoublesAreKeptApart() throws {
        #expect(try parse("12") == .int(12))
        if case .int = try parse("12") {} else { Issue.record("12 is not an int") }
        if case .double(let value) = try parse("12.0") {
            #expect(value == 12)
        } else {
            Issue.record("12.0 is not a double")
        }
        if case .double = try parse("1e2") {} else { Issue.record("1e2 is not a double") }
    }

    @Test func int64LimitsAreExact() throws {
        #expect(try parse("9223372036854775807") == .int(Int64.max))
        #expect(try parse("-9223372036854775808") == .int(Int64.min))
        // One past the limits is still a number, as a double.
        guard case .double(let above) = try parse("9223372036854775808") else {
            Issue.record("Int64.max + 1 is not a double")
            return
        }
        #expect(above == 9_223_372_036_854_775_808.0)
        guard case .double(let below) = try parse("-9223372036854775809") else {
            Issue.record("Int64.min - 1 is not a double")
            return
        }
        #expect(below == -9_223_372_036_854_775_808.0)
        #expect(try parse("99999999999999999999").int64Value == nil)
        #expect(try parse("1e308") == .double(1e308))
        #expect(try parse("5e-324") == .double(.leastNonzeroMagnitude))
    }

    @Test(arguments: [
        (#""\"""#, "\""), (#""\\""#, "\\"), (#""\/""#, "/"), (#""\b""#, "\u{8}"), (#""\f""#, "\u{C}"), (#""\n""#, "\n"),
        (#""\r""#, "\r"), (#""\t""#, "\t"), (#""\u0041""#, "A"), (#""\u00e9""#, "é"), (#""\u00E9""#, "é"),
        (#""\u0000""#, "\u{0}"),
        (#""\u2028\u2029""#, "\u{2028}\u{2029}"), (#""\ud83c\udf54""#, "🍔"), (#""\uD83D\uDE00""#, "😀"),
        (#""\uffff""#, "\u{FFFF}"),
        (#""a\"b\\c""#, "a\"b\\c"), ("\"é🍔\"", "é🍔"), ("\"\u{7F}\"", "\u{7F}"),
    ])
    func escapesDecode(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    @Test func aByteOrderMarkIsTolerated() throws {
        #expect(try JSON.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)) == ["a": 1])
    }

    // MARK: - Invalid texts

    @Test(arguments: [
        "", " ", "{", "}", "[", "]", "[1,2", "{\"a\":1", "{\"a\"}", "{\"a\" 1}", "{a:1}", "{'a':1}", "['a']", "[1,]",
        "{\"a\":1,}",
        "[,1]", "[1 2]", "{\"a\":1 \"b\":2}", "01", "-01", "00", "+1", "-", ".5", "1.", "1.e5", "1e", "1e+", "0x10",
        "NaN",
        "Infinity", "-Infinity", "tru", "nul", "fals", "True", "NULL", "undefined", "1 2", "{} {}", "[]]", "\"abc",
        "\"\\x\"",
        "\"\\u12\"", "\"\\u12G4\"", "\"\\U0041\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"",
        "\"\\ud800\\ud800\"", "\"a\u{0}b\"", "\"a\u{1F}b\"", "\"tab\there\"", "\"new\nline\"", "1e400", "-1e400",
        "/* comment */ 1", "// comment\n1", "[1]x", "{\"a\":1}\u{0}",
    ])
    func invalidTextsAreRefused(_ text: String) {
        #expect(throws: JSONParseError.self, "\(text.debugDescription)") { try JSON.parse(text) }
    }

    @Test(arguments: [
        [0xFF] as [UInt8], [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
        [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE2, 0x82, 0x22],
    ])
    func invalidUTF8IsRefused(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSON.parse(bytes) }
    }

    /// Strings with escapes are decoded from a copy: the same refusals there, and where the string starts. A
    /// four-byte sequence cut to three repairs to one U+FFFD, as many bytes as itself: refused all the same.
    @Test(arguments: [
        [0x22, 0xF0, 0x9F, 0x98, 0x22] as [UInt8], [0x22, 0x5C, 0x6E, 0xFF, 0x22],
        [0x22, 0x5C, 0x75, 0x30, 0x30, 0x65, 0x39, 0xC3, 0x22], [0x22, 0xC3, 0x5C, 0x6E, 0xA9, 0x22],
        [0x22, 0x5C, 0x74, 0xF0, 0x9F, 0x98, 0x22],
    ])
    func invalidUTF8AroundEscapesIsRefusedAtTheStringsStart(_ bytes: [UInt8]) {
        for (text, offset) in [(bytes, 1), ([0x5B] + bytes + [0x5D], 2)] {
            let error = #expect(throws: JSONParseError.self) { try JSON.parse(text) }
            #expect(error?.reason == "invalid UTF-8 in string")
            #expect(error?.offset == offset)
        }
    }

    @Test func textThatIsNotASCIIParsesWithAndWithoutEscapes() throws {
        #expect(try JSON.parse(Array(#"["Zoë Ångström 😀"]"#.utf8)) == ["Zoë Ångström 😀"])
        #expect(try JSON.parse(Array(#"["Zoë\n\u00c5ngstr\u00f6m \ud83d\ude00 ✓"]"#.utf8)) == ["Zoë\nÅngström 😀 ✓"])
        #expect(try JSON.parse(#"{"ü\"":"\u00fc"}"#) == ["ü\"": "ü"])
    }

    @Test func errorsSayWhere() {
        #expect(throws: JSONParseError.self) { try JSON.parse("[1,]") }
        do {
            _ = try JSON.parse(#"{"a":[1,2,]}"#)
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 10)
            #expect(!error.reason.isEmpty)
            #expect(error.description.contains("10"))
        }
    }

    // MARK: - Nesting

    @Test func nestingUpToTheLimitParses() throws {
        let depth = JSON.maximumDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: Never.self) { try JSON.parse(arrays) }
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(throws: Never.self) { try JSON.parse(objects) }
    }

    @Test func nestingBeyondTheLimitIsAnError() {
        let depth = JSON.maximumDepth + 1
        #expect(throws: JSONParseError.self) {
            try JSON.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        }
        #expect(throws: JSONParseError.self) {
            try JSON.parse(String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth))
        }
        #expect(throws: JSONParseError.self) {
            try JSON.parse(String(repeating: #"[{"a":"#, count: depth) + "1" + String(repeating: "}]", count: depth))
        }
    }

    @Test(arguments: [10_000, 100_000, 1_000_000])
    func absurdNestingIsAnErrorNotACrash(_ depth: Int) {
        #expect(throws: JSONParseError.self) { try JSON.parse(String(repeating: "[", count: depth)) }
        #expect(throws: JSONParseError.self) {
            try JSON.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        }
        #expect(throws: JSONParseError.self) { try JSON.parse(String(repeating: #"{"a":"#, count: depth)) }
    }

    // MARK: - Writing

    @Test(arguments: [
        ("plain", #""plain""#), ("quote\"", #""quote\"""#), ("back\\slash", #""back\\slash""#),
        ("slash/", #""slash/""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#), ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é🍔", "\"é🍔\""), ("\u{2028}", "\"\u{2028}\""), ("", #""""#),
    ])
    func stringsAreEscaped(value: String, expected: String) {
        #expect(JSON.string(value).encodedString == expected)
    }

    @Test func everyControlCharacterIsEscapedAndReadsBack() throws {
        let all = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        let encoded = JSON.string(all).encoded
        #expect(!encoded.contains { $0 < 0x20 })
        #expect(try JSON.parse(encoded) == .string(all))
        // Foundation reads it the same.
        #expect(try JSONSerialization.jsonObject(with: Data(encoded), options: [.fragmentsAllowed]) as? String == all)
    }

    /// The writer copies the text between escapes in runs: a character to escape is found wherever it falls, and
    /// the text around it is kept whole, multi-byte characters included.
    @Test(arguments: ["\"", "\\", "\n", "\u{01}", "\u{1F}"])
    func anEscapeIsFoundAtEveryPosition(special: String) throws {
        let escaped = JSON.string(special).encodedString.dropFirst().dropLast()
        for length in 0..<20 {
            for position in 0...length {
                let text =
                    String(repeating: "a", count: position) + special
                    + String(repeating: "é ~", count: (length - position) / 3 + 1)
                let expected =
                    "\"" + String(repeating: "a", count: position) + escaped
                    + String(repeating: "é ~", count: (length - position) / 3 + 1) + "\""
                #expect(JSON.string(text).encodedString == expected)
                #expect(try JSON.parse(JSON.string(text).encoded) == .string(text))
            }
        }
        // Bytes just above and below the ones that need escaping: copied as they are.
        let near = String(decoding: [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x41, 0x42, 0x20, 0x21], as: UTF8.self)
        #expect(JSON.string(near).encodedString == "\"" + near + "\"")
    }

    static let writtenCases: [(JSON, String)] = [
        (.int(0), "0"), (.int(7), "7"), (.int(-7), "-7"), (.int(Int64.max), "9223372036854775807"),
        (.int(Int64.min), "-9223372036854775808"), (.double(1.5), "1.5"), (.double(3), "3"), (.double(-0.0), "0"),
        (.double(.nan), "null"), (.double(.infinity), "null"), (.bool(true), "true"), (.null, "null"),
        (.array([.int(1), .array([.int(2), .int(3)]), .object([("a", .array([]))])]), #"[1,[2,3],{"a":[]}]"#),
        (.object([]), "{}"), (.array([]), "[]"),
    ]

    @Test(arguments: writtenCases)
    func valuesAreWrittenCompactly(value: JSON, expected: String) {
        #expect(value.encodedString == expected)
    }

    @Test func largeDoublesAreWrittenAsValidJSON() throws {
        for value in [
            1e20, 1.5e300, -2.5e-300, 123_456_789.125, Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
        ] {
            let text = JSON.double(value).encodedString
            #expect(
                try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? Double
                    == value, "\(text)")
            #expect(try JSON.parse(text).doubleValue == value, "\(text)")
        }
    }

    @Test func keyOrderIsKept() throws {
        let text = #"{"z":1,"a":2,"m":{"y":true,"b":false},"c":[3]}"#
        let value = try parse(text)
        #expect(value.objectValue?.map(\.key) == ["z", "a", "m", "c"])
        #expect(value["m"]?.objectValue?.map(\.key) == ["y", "b"])
        #expect(value.encodedString == text)
    }

    @Test func duplicateKeysAreRefused() throws {
        // Which of two values a reader takes is a guess every reader makes differently: the text is refused.
        #expect(throws: JSONParseError.self) { try parse(#"{"a":1,"b":2,"a":3}"#) }
        #expect(throws: JSONParseError.self) { try parse(#"{"x":{"a":1,"a":1}}"#) }
        // In a large object too (past the point where the keys seen are kept in a set).
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: JSONParseError.self) { try parse("{" + many + ",\"k7\":0}") }
        #expect(try parse("{" + many + "}").objectValue?.count == 40)
        #expect(try parse(#"[{"a":1},{"a":2}]"#).arrayValue?.count == 2, "the same key in two objects is fine")
    }

    @Test func theWriterBuildsNestedStructures() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("id", 42)
        writer.field("message", "Points \"Earned\"")
        writer.field("missing", nil as String?)
        writer.key("list")
        writer.beginArray()
        writer.value(1)
        writer.beginObject()
        writer.field("x", true)
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.null()
        writer.endArray()
        writer.field("ratio", 0.5)
        writer.key("raw")
        writer.raw(Array(#"{"pre":"encoded"}"#.utf8))
        writer.field("json", ["k": [1, 2]] as JSON)
        writer.endObject()
        #expect(
            writer.string
                == #"{"id":42,"message":"Points \"Earned\"","missing":null,"list":[1,{"x":true},[],null],"ratio":0.5,"raw":{"pre":"encoded"},"json":{"k":[1,2]}}"#
        )
    }

    // MARK: - Round trips

    @Test(arguments: [
        #"{"aps":{"alert":{"title":"Points Earned","subtitle":"You've earned points!","body":"You've got 12 points from your last visit at Brooklyn Location!"},"sound":"default","badge":10},"f":0,"i":23573125,"n":96763507,"p":12,"t":"POS_6118542_1487057215","u":6118542}"#,
        #"[null,true,false,0,-1,1.5,"",{}]"#,
        #"{"errors":{"email":["has already been taken"]}}"#,
        #"{"s":"\"\\\/\b\f\n\r\t\u0000é🍔"}"#,
    ])
    func textsRoundTrip(_ text: String) throws {
        let value = try parse(text)
        #expect(try JSON.parse(value.encoded) == value)
        // And Foundation agrees with what was written.
        #expect(throws: Never.self) {
            try JSONSerialization.jsonObject(with: Data(value.encoded), options: [.fragmentsAllowed])
        }
    }

    @Test func canonicalTextIsReproducedByteForByte() throws {
        let text =
            #"{"aps":{"alert":{"title":"Points Earned","body":"12 at \"Brooklyn\""},"badge":10},"p":12,"t":"POS_1","x":[1.5,null,true]}"#
        #expect(try parse(text).encodedString == text)
    }

    @Test func randomValuesRoundTrip() throws {
        var random = SeededGenerator(seed: 2026)
        for _ in 0..<300 {
            let value = randomJSON(depth: 0, &random)
            let encoded = value.encoded
            #expect(try JSON.parse(encoded) == value, "\(value.encodedString)")
            #expect(throws: Never.self) {
                try JSONSerialization.jsonObject(with: Data(encoded), options: [.fragmentsAllowed])
            }
        }
    }

    private func randomJSON(depth: Int, _ random: inout SeededGenerator) -> JSON {
        switch Int.random(in: 0..<(depth > 4 ? 5 : 7), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3:
            let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random))
            return value.isFinite ? .double(value) : .double(0.25)
        case 4:
            let scalars = (0..<Int.random(in: 0...12, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x1F_FFF, using: &random))
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in randomJSON(depth: depth + 1, &random) })
        default:
            return .object(
                (0..<Int.random(in: 0...4, using: &random)).map { index in
                    (
                        key: "k\(index)\(Int.random(in: 0...9, using: &random))",
                        value: randomJSON(depth: depth + 1, &random)
                    )
                })
        }
    }

    @Test func objectEqualityIgnoresKeyOrder() {
        let a: JSON = .object([("a", .int(1)), ("b", .int(2))])
        let b: JSON = .object([("b", .int(2)), ("a", .int(1))])
        #expect(a == b)
        #expect(a != .object([("a", .int(1)), ("b", .int(3))]))
        #expect(JSON.int(2) == .double(2))
        #expect(JSON.string("1") != .int(1))
    }

    @Test(.bug(id: "apitests-11", "JSON == on objects with a repeated key is not symmetric"))
    func objectEqualityIsSymmetric() {
        let repeated: JSON = .object([("a", .int(1)), ("a", .int(1))])
        let other: JSON = .object([("a", .int(1)), ("b", .int(2))])
        #expect(other != repeated)
        #expect(repeated != other)
    }

    // MARK: - Accessors

    @Test func accessorsAnswerOnlyForTheirType() throws {
        let value = try parse(#"{"s":"x","i":3,"d":2.0,"f":2.5,"b":true,"n":null,"a":[1],"big":1e16}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.stringValue == nil)
        #expect(value["i"]?.int64Value == 3)
        #expect(value["d"]?.int64Value == 2)
        #expect(value["f"]?.int64Value == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["big"]?.int64Value == nil)
        #expect(value["b"]?.boolValue == true)
        #expect(value["i"]?.boolValue == nil)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["missing"] == nil)
        #expect(value["a"]?["x"] == nil)
    }
}
