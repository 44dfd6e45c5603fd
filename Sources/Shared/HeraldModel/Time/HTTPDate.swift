import Foundation

/// HTTP's date format (RFC 9110 §5.6.7, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT` — the server's `Date` and
/// `Last-Modified`, a provider's `Retry-After`, and the server's clock the SDK signs with when the device's is off.
public enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `seconds` since the Unix epoch, in UTC (locale-independent).
    public static func format(secondsSince1970 seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The seconds since the Unix epoch an IMF-fixdate names, or nil when `text` is not one.
    public static func parse(_ text: String) -> Int64? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int32(fields[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(fields[2])),
            let year = Int32(fields[3]), (1970...9999).contains(year)
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, Int32(month), day)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (clock[0], clock[1], clock[2])
        return Int64(timegm(&parts))
    }
}
