import HeraldHTTPServer

/// `limit` (1–500, default 50) and `offset` of a list.
struct Page {
    let limit: Int
    let offset: Int

    init(_ request: HTTPRequest) throws {
        var errors = FieldErrors()
        func number(_ name: String, _ range: ClosedRange<Int>, _ fallback: Int) -> Int {
            guard let text = request.queryValue(name) else { return fallback }
            guard let value = Int(text), range.contains(value) else {
                errors.add(name, "must be a number from \(range.lowerBound) to \(range.upperBound)")
                return fallback
            }
            return value
        }
        limit = number("limit", 1...500, 50)
        offset = number("offset", 0...10_000_000, 0)
        try errors.check()
    }
}
