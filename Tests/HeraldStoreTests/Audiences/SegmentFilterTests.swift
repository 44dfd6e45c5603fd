import HeraldModel
import HeraldStore
import Testing

@Suite("Segment filter grammar")
struct SegmentFilterTests {
    static func parse(_ text: String) throws -> SegmentFilter {
        try SegmentFilter(json: try JSON.parse(text))
    }

    /// The error a filter gets, as `path: message`.
    static func error(_ text: String) -> SegmentFilterError? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as SegmentFilterError {
            return error
        } catch {
            return SegmentFilterError(path: "(json)", "\(error)")
        }
    }

    @Test func everyKindOfConditionIsRead() throws {
        let filter = try Self.parse(
            #"""
            {"all":[
              {"attribute":"tier","op":"eq","value":"gold"},
              {"attribute":"age","op":"ne","value":30},
              {"attribute":"score","op":"lt","value":-1.5},
              {"attribute":"name","op":"gt","value":"M"},
              {"attribute":"plan","op":"in","value":["a",2,true,"a"]},
              {"attribute":"vip","op":"eq","value":false},
              {"attribute":"city","op":"exists"},
              {"any":[{"segment":"beta"},{"platform":"ios"},{"platform":"android"}]},
              {"not":{"last_seen_within_days":30}},
              {"any":[]}
            ]}
            """#)
        #expect(
            filter
                == .all([
                    .attribute("tier", .eq(.string("gold"))), .attribute("age", .ne(.number(30))),
                    .attribute("score", .lt(.number(-1.5))), .attribute("name", .gt(.string("M"))),
                    .attribute("plan", .in([.string("a"), .number(2), .bool(true), .string("a")])),
                    .attribute("vip", .eq(.bool(false))), .attribute("city", .exists),
                    .any([.segment("beta"), .platform(.apns), .platform(.fcm)]), .not(.lastSeenWithinDays(30)),
                    .any([]),
                ]))
        // Its JSON reads back to the same filter.
        #expect(try SegmentFilter(json: filter.json) == filter)
        #expect(filter.json["all"]?.arrayValue?[1]["value"] == .int(30))
        #expect(filter.json["all"]?.arrayValue?[7]["any"]?.arrayValue?[1] == ["platform": "ios"])
    }

    @Test(arguments: [
        ("[]", "filter", "must be an object"),
        (#"{}"#, "filter", "must have one of"),
        (#"{"all":[],"any":[]}"#, "filter", "has all and any"),
        (#"{"all":{}}"#, "filter.all", "must be a list of conditions"),
        (#"{"all":[{"segment":"a"},{"segment":""}]}"#, "filter.all[1].segment", "device segment"),
        (
            #"{"all":[{"segment":"a"},{"segment":"b"},{"attribute":"x","op":"like","value":"y"}]}"#, "filter.all[2].op",
            "must be one of: eq, ne, lt, gt, in, exists"
        ),
        (
            #"{"any":[{"not":{"attribute":"x y","op":"eq","value":1}}]}"#, "filter.any[0].not.attribute",
            "attribute's key"
        ),
        (#"{"attribute":"x","op":"eq"}"#, "filter.value", "is required for eq"),
        (#"{"attribute":"x","op":"eq","value":null}"#, "filter.value", "must be a string, a number or a boolean"),
        (#"{"attribute":"x","op":"eq","value":{"a":1}}"#, "filter.value", "got object"),
        (#"{"attribute":"x","op":"eq","value":[1]}"#, "filter.value", "got array"),
        (#"{"attribute":"x","op":"lt","value":true}"#, "filter.value", "must be a number or a string for lt"),
        (#"{"attribute":"x","op":"in","value":[]}"#, "filter.value", "non-empty list"),
        (#"{"attribute":"x","op":"in","value":"a"}"#, "filter.value", "non-empty list"),
        (#"{"attribute":"x","op":"in","value":["a",[1]]}"#, "filter.value[1]", "got array"),
        (#"{"attribute":"x","op":"exists","value":1}"#, "filter.value", "must be absent for exists"),
        (#"{"attribute":"x","op":"eq","value":1,"extra":2}"#, "filter.extra", "is not a field"),
        (#"{"segment":"a","op":"eq"}"#, "filter.op", "is not a field of a segment condition"),
        (#"{"attribute":"x","op":"eq","value":"a\u0000b"}"#, "filter.value", "NUL"),
        (#"{"platform":"windows"}"#, "filter.platform", "must be ios or android"),
        (#"{"last_seen_within_days":0}"#, "filter.last_seen_within_days", "1 to 3650"),
        (#"{"last_seen_within_days":1.5}"#, "filter.last_seen_within_days", "1 to 3650"),
        (#"{"last_seen_within_days":"7"}"#, "filter.last_seen_within_days", "1 to 3650"),
        (#"{"not":[]}"#, "filter.not", "must be an object"),
    ])
    func badNodesAreNamedByTheirPath(_ text: String, _ path: String, _ message: String) {
        let error = Self.error(text)
        #expect(error?.path == path, "\(text): \(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(text): \(String(describing: error))")
    }

    @Test func limitsAreEnforced() {
        // Depth: eleven levels of not.
        let deep = String(repeating: #"{"not":"#, count: 11) + #"{"segment":"a"}"# + String(repeating: "}", count: 11)
        #expect(Self.error(deep)?.message.contains("nests too deep") == true)
        let ten = String(repeating: #"{"not":"#, count: 10) + #"{"segment":"a"}"# + String(repeating: "}", count: 10)
        #expect(Self.error(ten) == nil)
        // Nodes: 200 in all.
        let many = #"{"any":["# + Array(repeating: #"{"segment":"a"}"#, count: 200).joined(separator: ",") + "]}"
        #expect(Self.error(many)?.path == "filter.any[199]")
        // Values: 500 per in, 2,000 in all.
        let values = (0..<501).map(String.init).joined(separator: ",")
        #expect(
            Self.error(#"{"attribute":"x","op":"in","value":[\#(values)]}"#)?.message.contains("at most 500") == true)
        let fiveHundred = (0..<500).map(String.init).joined(separator: ",")
        let five =
            #"{"any":["#
            + Array(repeating: #"{"attribute":"x","op":"in","value":[\#(fiveHundred)]}"#, count: 5)
            .joined(separator: ",") + "]}"
        #expect(Self.error(five)?.path == "filter.any[4].value")
        // Strings: 1,000 bytes.
        let long = String(repeating: "é", count: 501)
        #expect(Self.error(#"{"attribute":"x","op":"eq","value":"\#(long)"}"#)?.message.contains("too long") == true)
    }

    @Test func attributeKeysAreWhatImportsAccept() {
        for key in ["tier", "first_purchase.at", "crm:id", "A-1", String(repeating: "k", count: 100)] {
            #expect(SegmentFilter.isAttributeKey(key), "\(key)")
        }
        for key in ["", "a b", "a\"b", "a'b", "$.x", "é", "a\\b", String(repeating: "k", count: 101)] {
            #expect(!SegmentFilter.isAttributeKey(key), "\(key)")
        }
    }
}
