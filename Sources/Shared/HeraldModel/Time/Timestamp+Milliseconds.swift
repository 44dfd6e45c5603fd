extension Timestamp {
    /// ISO 8601 in UTC with milliseconds, as device events write times: `2025-05-01T09:30:00.250Z`.
    public var iso8601WithMilliseconds: String {
        var text = iso8601
        text.removeLast()
        let millis = milliseconds - seconds * 1000
        let digits = String(millis)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
