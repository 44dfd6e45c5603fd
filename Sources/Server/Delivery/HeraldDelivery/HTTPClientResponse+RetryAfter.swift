import HeraldHTTPClient
import HeraldModel

extension HTTPClientResponse {
    /// The `Retry-After` the service sent, if any: whole seconds, or an HTTP date (RFC 9110 §10.2.3) counted from
    /// `now` (the provider's clock); capped at an hour, never negative.
    package func retryAfter(now: Timestamp) -> Duration? {
        guard let header = header("retry-after") else { return nil }
        let value = String(header.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        let seconds: Int64
        if let delay = Int64(value), delay >= 0 {
            seconds = delay
        } else if let date = HTTPDate.parse(value) {
            seconds = max(0, (date * 1000 - now.milliseconds + 999) / 1000)
        } else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }
}
