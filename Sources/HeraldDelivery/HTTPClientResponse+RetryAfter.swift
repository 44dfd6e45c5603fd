import HeraldHTTP
import HeraldModel

extension HTTPClientResponse {
    /// The `Retry-After` the service sent, if any: whole seconds, or an HTTP date (RFC 9110 §10.2.3) counted from
    /// the system clock; capped at an hour.
    public var retryAfter: Duration? { retryAfter(now: WallClock.system.now()) }

    /// The `Retry-After` the service sent, an HTTP date counted from `now`; capped at an hour, never negative.
    public func retryAfter(now: Timestamp) -> Duration? {
        guard let header = header("retry-after") else { return nil }
        let value = String(header.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let seconds: Int64
        if let delay = Int64(value), delay >= 0 {
            seconds = delay
        } else if let date = HTTPDate.parse(value) {
            seconds = max(0, (date.milliseconds - now.milliseconds + 999) / 1000)
        } else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }
}

/// HTTP's preferred date form, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The time `text` names, or nil when it is not an IMF-fixdate.
    static func parse(_ text: String) -> Timestamp? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int64(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])).map({ Int64($0) + 1 }),
            let year = Int64(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let seconds =
            daysSinceEpoch(year: year, month: month, day: day) * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Timestamp(milliseconds: seconds * 1000)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
