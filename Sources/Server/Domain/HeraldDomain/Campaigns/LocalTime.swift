import Foundation
import HeraldModel

/// A time of day on a wall clock (`"21:30"`): campaigns' local send times and quiet hours.
package struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0..<1440.
    package let minuteOfDay: Int

    /// `HH:MM` (24-hour, two digits each), or nil.
    package init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        minuteOfDay = hour * 60 + minute
    }

    /// The time `minuteOfDay` minutes after midnight.
    package init(minuteOfDay: Int) { self.minuteOfDay = ((minuteOfDay % 1440) + 1440) % 1440 }

    /// `HH:MM`.
    package var description: String {
        let hour = minuteOfDay / 60
        let minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    package static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.minuteOfDay < rhs.minuteOfDay }
}

/// When a message goes out to one device: a local time of day, quiet hours, in the device's own time zone.
///
/// Time zones are applied by their UTC offset at the moment concerned (Foundation's `TimeZone`); a local time
/// that a daylight-saving change skips comes an hour later, one it repeats comes once.
package struct LocalClock: Sendable {
    private let zone: TimeZone

    /// The clock of the IANA zone `identifier` (`Europe/Paris`); UTC when it is nil or unknown.
    package init(timeZone identifier: String?) {
        zone = identifier.flatMap(TimeZone.init(identifier:)) ?? TimeZone(secondsFromGMT: 0)!
    }

    /// The zone's offset from UTC at `time`, in milliseconds.
    private func offset(at time: Timestamp) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))) * 1000
    }

    /// The time of day it is here at `time`.
    package func localTime(at time: Timestamp) -> LocalTime {
        let local = time.milliseconds + offset(at: time)
        return LocalTime(minuteOfDay: Int(((local / 60_000) % 1440 + 1440) % 1440))
    }

    /// The first moment at or after `time` when the clock here reads `target`.
    package func next(_ target: LocalTime, atOrAfter time: Timestamp) -> Timestamp {
        let day: Int64 = 86_400_000
        let local = time.milliseconds + offset(at: time)
        let midnight = local - ((local % day) + day) % day
        var candidate = midnight + Int64(target.minuteOfDay) * 60_000
        if candidate < local { candidate += day }
        let utc = candidate - offset(at: Timestamp(milliseconds: candidate - offset(at: time)))
        return Timestamp(milliseconds: max(utc, time.milliseconds))
    }

    /// `time`, or the end of quiet hours `start..<end` (an overnight window when `end` is before `start`) when
    /// `time` falls within them: a message held, not dropped.
    package func outside(quietHours start: LocalTime, _ end: LocalTime, at time: Timestamp) -> Timestamp {
        let now = localTime(at: time).minuteOfDay
        let quiet =
            start < end
            ? now >= start.minuteOfDay && now < end.minuteOfDay
            : now >= start.minuteOfDay || now < end.minuteOfDay
        return quiet ? next(end, atOrAfter: time) : time
    }
}
