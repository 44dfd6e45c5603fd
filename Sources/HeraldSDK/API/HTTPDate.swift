import HeraldModel

/// Reads an HTTP `Date` header (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`): the server's clock, to sign with
/// when the device's is off.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The time, or nil for anything but an IMF-fixdate.
    static func parse(_ text: String) -> Timestamp? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT", parts[1].count == 2,
            let monthIndex = months.firstIndex(of: String(parts[2])), parts[3].count == 4, parts[4].count == 8
        else { return nil }
        let month = monthIndex + 1
        let iso = "\(parts[3])-\(month < 10 ? "0" : "")\(month)-\(parts[1])T\(parts[4])Z"
        return Timestamp(iso8601: iso)
    }
}
