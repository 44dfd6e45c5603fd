import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A structured logger: a message plus metadata, written as one logfmt line per event.
///
/// ```swift
/// let logger = Logger(label: "herald.delivery")
/// logger.info("delivered", ["delivery.id": "42", "provider": "apns"])
/// ```
/// Device tokens, keys and secrets never go into a message or metadata, at any level.
public struct Logger: Sendable {
    /// How important an event is; events below the logger's level are dropped.
    public struct Level: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Higher is more important.
        package let rawValue: Int
        /// The name written in the log line.
        package let name: String

        public static let trace = Level(rawValue: 0, name: "trace")
        public static let debug = Level(rawValue: 1, name: "debug")
        public static let info = Level(rawValue: 2, name: "info")
        public static let notice = Level(rawValue: 3, name: "notice")
        public static let warning = Level(rawValue: 4, name: "warning")
        public static let error = Level(rawValue: 5, name: "error")
        public static let critical = Level(rawValue: 6, name: "critical")

        /// The level named `name` (case-insensitive), or nil.
        package init?(name: String) {
            let all: [Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
            guard let level = all.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        private init(rawValue: Int, name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        public var description: String { name }
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How a line is written.
    package enum Format: String, Sendable {
        /// `2026-01-01T00:00:00.000Z info herald.http: message key=value …`
        case logfmt
        /// `{"time":"…","level":"info","label":"herald.http","message":"…","key":"value",…}`
        case json
    }

    /// Dotted name of the component logging.
    package var label: String
    /// How lines are written.
    package var format: Format = .logfmt
    /// Events below this level are dropped.
    package var level: Level
    /// Metadata added to every event of this logger.
    package var metadata: [String: String]
    private let sink: LogSink

    /// A logger writing to `sink` (standard error by default).
    package init(
        label: String, level: Level = .info, metadata: [String: String] = [:], format: Format = .logfmt,
        sink: LogSink = .standardError
    ) {
        self.label = label
        self.format = format
        self.level = level
        self.metadata = metadata
        self.sink = sink
    }

    /// A logger that writes nothing.
    package static let disabled = Logger(label: "disabled", level: .critical, sink: LogSink { _ in })

    /// True when events at `level` would be written.
    package func isEnabled(_ level: Level) -> Bool { level >= self.level }

    /// The same logger under another label.
    package func labeled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// Writes one event if `level` is enabled.
    package func log(_ level: Level, _ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        guard level >= self.level else { return }
        if format == .json {
            sink.write(jsonLine(level, message(), extra))
            return
        }
        var line = Timestamp.nowISO8601Milliseconds()
        line += " " + level.name + " " + label + ": " + message()
        let keys = metadata.isEmpty ? extra.keys.sorted() : Set(metadata.keys).union(extra.keys).sorted()
        for key in keys {
            let value = extra[key] ?? metadata[key] ?? ""
            line += " " + key + "=" + Self.quoted(value)
        }
        line += "\n"
        sink.write(line)
    }

    /// Writes a trace event.
    package func trace(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.trace, message(), extra)
    }
    /// Writes a debug event.
    package func debug(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.debug, message(), extra)
    }
    /// Writes an info event.
    package func info(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.info, message(), extra)
    }
    /// Writes a notice event.
    package func notice(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.notice, message(), extra)
    }
    /// Writes a warning event.
    package func warning(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.warning, message(), extra)
    }
    /// Writes an error event.
    package func error(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        log(.error, message(), extra)
    }

    private func jsonLine(_ level: Level, _ message: String, _ extra: [String: String]) -> String {
        var line = "{\"time\":\"" + Timestamp.nowISO8601Milliseconds() + "\",\"level\":\"" + level.name
        line += "\",\"label\":" + Self.jsonString(label) + ",\"message\":" + Self.jsonString(message)
        let keys = metadata.isEmpty ? extra.keys.sorted() : Set(metadata.keys).union(extra.keys).sorted()
        for key in keys where !["time", "level", "label", "message"].contains(key) {
            line += "," + Self.jsonString(key) + ":" + Self.jsonString(extra[key] ?? metadata[key] ?? "")
        }
        return line + "}\n"
    }

    static func jsonString(_ value: String) -> String {
        escaped(value) { "\\u" + String(repeating: "0", count: 4 - $0.count) + $0 }
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.utf8.contains {
                $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\\")
            }
        guard needsQuotes else { return value }
        return escaped(value) { "\\u{\($0)}" }
    }

    /// `value` in double quotes with `"`, `\`, and control characters escaped; `unicode` spells a control
    /// character other than `\n`, `\r`, `\t` from its code in hex (JSON's `\u000b`, logfmt's `\u{b}`).
    private static func escaped(_ value: String, unicode: (String) -> String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += unicode(String(scalar.value, radix: 16))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Where log lines go. Thread-safe.
package struct LogSink: Sendable {
    private let writeLine: @Sendable (String) -> Void

    /// A sink that hands each complete line (with its newline) to `write`.
    package init(_ write: @escaping @Sendable (String) -> Void) { writeLine = write }

    /// Writes a line.
    package func write(_ line: String) { writeLine(line) }

    /// Standard error; each line is written with one `write(2)`, so lines from threads never interleave.
    package static let standardError = LogSink { line in
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}

enum Timestamp {
    static func nowISO8601Milliseconds() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var time = spec.tv_sec
        var parts = tm()
        gmtime_r(&time, &parts)
        let millis = spec.tv_nsec / 1_000_000
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }
}
