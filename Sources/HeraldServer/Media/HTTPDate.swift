import Foundation

/// HTTP's date format (RFC 9110 §5.6.7, IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of `seconds` since the Unix epoch, in UTC (locale-independent).
    static func format(secondsSince1970 seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(parts.tm_year + 1900)
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
