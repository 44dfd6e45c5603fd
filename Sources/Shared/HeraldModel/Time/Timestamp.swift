/// A point in time as whole milliseconds since the Unix epoch: what the store keeps and the API shows.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// A timestamp `milliseconds` after the epoch.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Whole seconds since the epoch (rounded down).
    public var seconds: Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }

    /// This time moved by `duration`.
    public func adding(_ duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        return Timestamp(milliseconds: milliseconds + seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The duration from `other` to this time.
    public func since(_ other: Timestamp) -> Duration { .milliseconds(milliseconds - other.milliseconds) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// ISO 8601 in UTC with second precision, as Punchh shows times: `2017-02-14T07:26:55Z`.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the ISO 8601 form (years 0–9999) as UTF-8, without building a String.
    public func appendISO8601(to bytes: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civilDate(fromDays: days)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = max(0, value)
            for _ in 0..<width {
                bytes.append(UInt8(48 + (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(45)
        digits(month, 2)
        bytes.append(45)
        digits(day, 2)
        bytes.append(84)
        digits(secondOfDay / 3600, 2)
        bytes.append(58)
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(58)
        digits(secondOfDay % 60, 2)
        bytes.append(90)
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, an offset being one some place uses (at most 14 hours, whole
    /// minutes under 60); nil for anything else.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 32,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            var scale: Int64 = 100
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        if bytes[index] == 90 {
            index += 1
        } else if bytes[index] == 43 || bytes[index] == 45, let h = number(index + 1, 2), let m = number(index + 4, 2),
            bytes.count > index + 3, bytes[index + 3] == 58, m < 60, h * 60 + m <= 14 * 60
        {
            offsetSeconds = (h * 3600 + m * 60) * (bytes[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.days(fromCivilYear: year, month: month, day: day)
        let total = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.init(milliseconds: total * 1000 + millis)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-from-days and days-from-civil algorithms.
    static func civilDate(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
