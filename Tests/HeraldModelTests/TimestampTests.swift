import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// `Timestamp`'s ISO 8601 form: what the API shows (`2017-02-14T07:26:55Z`) and what it reads back.
@Suite("Timestamp")
struct TimestampTests {
    static let known: [(String, Int64)] = [
        ("1970-01-01T00:00:00Z", 0),
        ("2017-02-14T07:26:55Z", 1_487_057_215_000),  // the seed's POS_6118542_1487057215
        ("1969-12-31T23:59:59Z", -1_000),
        ("1969-12-31T00:00:00Z", -86_400_000),
        ("1969-12-30T23:59:59Z", -86_401_000),
        ("1900-01-01T00:00:00Z", -2_208_988_800_000),
        ("1600-02-29T12:00:00Z", -11_670_955_200_000),
        ("1904-02-29T23:59:59Z", -2_077_660_801_000),
        ("1960-02-29T06:00:00Z", -310_500_000_000),
        ("2000-02-29T00:00:00Z", 951_782_400_000),
        ("2024-02-29T12:34:56Z", 1_709_210_096_000),
        ("2100-02-28T23:59:59Z", 4_107_542_399_000),
        ("2100-03-01T00:00:00Z", 4_107_542_400_000),
        ("1970-03-01T00:00:00Z", 5_097_600_000),
        ("2038-01-19T03:14:08Z", 2_147_483_648_000),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000),
        ("9999-12-31T23:59:59Z", 253_402_300_799_000),
    ]

    @Test(arguments: known)
    func formatsKnownInstants(text: String, milliseconds: Int64) {
        #expect(Timestamp(milliseconds: milliseconds).iso8601 == text)
        #expect(Timestamp(milliseconds: milliseconds).description == text)
    }

    @Test(arguments: known)
    func parsesKnownInstants(text: String, milliseconds: Int64) {
        #expect(Timestamp(iso8601: text) == Timestamp(milliseconds: milliseconds))
    }

    @Test func formattingDropsMillisecondsTowardsThePast() {
        #expect(Timestamp(milliseconds: 999).iso8601 == "1970-01-01T00:00:00Z")
        #expect(Timestamp(milliseconds: -1).iso8601 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(milliseconds: -999).iso8601 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(milliseconds: -1_001).iso8601 == "1969-12-31T23:59:58Z")
        #expect(Timestamp(milliseconds: 1_487_057_215_999).iso8601 == "2017-02-14T07:26:55Z")
    }

    @Test func secondsRoundDown() {
        #expect(Timestamp(milliseconds: 1_999).seconds == 1)
        #expect(Timestamp(milliseconds: 0).seconds == 0)
        #expect(Timestamp(milliseconds: -1).seconds == -1)
        #expect(Timestamp(milliseconds: -1_000).seconds == -1)
        #expect(Timestamp(milliseconds: -1_001).seconds == -2)
    }

    @Test func everyDayOfALeapCenturyRoundTrips() throws {
        // 1896-01-01 to 2104-12-31: leap years, the 1900 and 2100 non-leap years, 2000's leap day, both sides of 1970.
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var day = Timestamp(iso8601: "1896-01-01T12:00:00Z")!
        let end = Timestamp(iso8601: "2105-01-01T00:00:00Z")!
        var count = 0
        while day < end {
            let text = day.iso8601
            #expect(Timestamp(iso8601: text) == day, "\(text)")
            // Foundation agrees (checked on a sample of days, for speed).
            if count % 13 == 0 {
                #expect(formatter.string(from: Date(timeIntervalSince1970: Double(day.seconds))) == text)
            }
            day = day.adding(.seconds(86_400))
            count += 1
        }
        #expect(count == 76_336)
    }

    @Test func leapDaysExistOnlyInLeapYears() {
        #expect(Timestamp(milliseconds: 951_782_400_000 - 1_000).iso8601 == "2000-02-28T23:59:59Z")
        #expect(Timestamp(milliseconds: 951_782_400_000 + 86_400_000).iso8601 == "2000-03-01T00:00:00Z")
        #expect(Timestamp(milliseconds: 4_107_542_399_000 + 1_000).iso8601 == "2100-03-01T00:00:00Z")
    }

    @Test func randomInstantsRoundTripToTheSecond() {
        var random = SeededGenerator(seed: 8601)
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)
            let timestamp = Timestamp(milliseconds: milliseconds)
            let parsed = Timestamp(iso8601: timestamp.iso8601)
            #expect(parsed == Timestamp(milliseconds: timestamp.seconds * 1000), "\(milliseconds)")
        }
    }

    @Test(arguments: [
        ("2017-02-14T07:26:55.123Z", 1_487_057_215_123), ("2017-02-14T07:26:55.1Z", 1_487_057_215_100),
        ("2017-02-14T07:26:55.123456Z", 1_487_057_215_123), ("2017-02-14T09:26:55+02:00", 1_487_057_215_000),
        ("2017-02-14T01:56:55-05:30", 1_487_057_215_000), ("2017-02-14T07:26:55+00:00", 1_487_057_215_000),
        ("2017-02-14 07:26:55Z", 1_487_057_215_000), ("2017-02-14T09:26:55.500+02:00", 1_487_057_215_500),
        ("1970-01-01T00:59:59+01:00", -1_000),
    ])
    func parsesFractionsOffsetsAndSpaces(text: String, milliseconds: Int64) {
        #expect(Timestamp(iso8601: text) == Timestamp(milliseconds: milliseconds))
    }

    @Test(arguments: [
        "", "2017-02-14", "2017-02-14T07:26:55", "2017-02-14T07:26Z", "2017-13-01T00:00:00Z", "2017-00-10T00:00:00Z",
        "2017-02-00T00:00:00Z", "2017-02-32T00:00:00Z", "2017-02-14T24:00:00Z", "2017-02-14T07:60:00Z",
        "2017-02-14T07:26:62Z",
        "2017-02-14T07:26:55+0200", "2017-02-14T07:26:55+02", "2017-02-14T07:26:55Zjunk", "2017-02-14T07:26:55z",
        "17-02-14T07:26:55Z", "2017/02/14T07:26:55Z", "2017-02-14T07:26:55 Z", "abcd-ef-ghTij:kl:mnZ",
        "+2017-02-14T07:26:55Z",
    ])
    func refusesWhatIsNotISO8601(_ text: String) {
        #expect(Timestamp(iso8601: text) == nil, "\(text)")
    }

    @Test(
        .bug(
            id: "apitests-6", "Timestamp(iso8601:) accepts days that don't exist in their month, and an empty fraction")
    )
    func refusesDaysThatDoNotExist() {
        for text in [
            "2017-02-29T00:00:00Z", "2017-02-30T00:00:00Z", "2100-02-29T00:00:00Z", "2017-04-31T00:00:00Z",
            "2017-02-14T07:26:55.Z",
        ] {
            #expect(Timestamp(iso8601: text) == nil, "\(text) became \(Timestamp(iso8601: text)?.iso8601 ?? "nil")")
        }
    }

    @Test func addingAndSinceAreInverse() {
        let start = Timestamp(milliseconds: 1_487_057_215_000)
        let later = start.adding(.milliseconds(1_500))
        #expect(later.milliseconds == 1_487_057_216_500)
        #expect(later.since(start) == .milliseconds(1_500))
        #expect(start.adding(.seconds(-86_400)).iso8601 == "2017-02-13T07:26:55Z")
        #expect(start < later)
    }

    @Test func offsetsAreOnesSomePlaceUses() {
        #expect(Timestamp(iso8601: "2026-12-31T18:00:00+14:00") == Timestamp(iso8601: "2026-12-31T04:00:00Z"))
        #expect(Timestamp(iso8601: "2026-12-31T18:00:00-09:30") == Timestamp(iso8601: "2027-01-01T03:30:00Z"))
        for text in [
            "2026-12-31T18:00:00+99:99", "2026-12-31T18:00:00+14:30", "2026-12-31T18:00:00-15:00",
            "2026-12-31T18:00:00+05:60",
        ] {
            #expect(Timestamp(iso8601: text) == nil, "\(text)")
        }
    }
}
