import HeraldHTTP

extension HTTPClientResponse {
    /// The `Retry-After` the service sent, in whole seconds (capped at an hour), if any.
    public var retryAfter: Duration? {
        guard let value = header("retry-after"), let seconds = Int64(value.filter { $0 != " " }), seconds >= 0 else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }
}
