import HeraldDomain
import HeraldModel
import Testing

@Suite("Local clocks: send times and quiet hours in a device's own zone")
struct LocalClockTests {
    /// 2026-12-01T12:00:00Z.
    let noonUTC = Timestamp(iso8601: "2026-12-01T12:00:00Z")!

    @Test func timesOfDayParseAndPrint() {
        #expect(LocalTime("09:05")?.minuteOfDay == 545)
        #expect(LocalTime("23:59")?.description == "23:59")
        for bad in ["9:05", "24:00", "12:60", "12-00", "", "ab:cd", "12:00:00", "１２:00"] {
            #expect(LocalTime(bad) == nil, "\(bad)")
        }
    }

    @Test func theNextLocalTimeIsTheZonesOwn() {
        // 18:00 in New York (UTC-5 in December) is 23:00Z the same day.
        let newYork = LocalClock(timeZone: "America/New_York")
        #expect(newYork.next(LocalTime("18:00")!, atOrAfter: noonUTC).iso8601 == "2026-12-01T23:00:00Z")
        // 09:00 in Tokyo (UTC+9) is 00:00Z: already past at noon UTC (21:00 Tokyo), so the next day.
        let tokyo = LocalClock(timeZone: "Asia/Tokyo")
        #expect(tokyo.next(LocalTime("09:00")!, atOrAfter: noonUTC).iso8601 == "2026-12-02T00:00:00Z")
        // No zone, or one nobody knows: UTC.
        #expect(LocalClock(timeZone: nil).next(LocalTime("12:00")!, atOrAfter: noonUTC) == noonUTC)
        #expect(LocalClock(timeZone: "Mars/Olympus").localTime(at: noonUTC) == LocalTime("12:00"))
    }

    @Test func quietHoursHoldUntilTheyEnd() {
        let paris = LocalClock(timeZone: "Europe/Paris")  // UTC+1 in December
        // 13:00 in Paris, quiet 12:00–14:00: held until 14:00 Paris = 13:00Z.
        #expect(
            paris.outside(quietHours: LocalTime("12:00")!, LocalTime("14:00")!, at: noonUTC).iso8601
                == "2026-12-01T13:00:00Z")
        // Overnight quiet hours 22:00–08:00: 23:30 Paris (22:30Z) waits until 08:00 Paris next day (07:00Z).
        let late = Timestamp(iso8601: "2026-12-01T22:30:00Z")!
        #expect(
            paris.outside(quietHours: LocalTime("22:00")!, LocalTime("08:00")!, at: late).iso8601
                == "2026-12-02T07:00:00Z")
        // Outside them: unchanged.
        #expect(paris.outside(quietHours: LocalTime("22:00")!, LocalTime("08:00")!, at: noonUTC) == noonUTC)
    }
}
