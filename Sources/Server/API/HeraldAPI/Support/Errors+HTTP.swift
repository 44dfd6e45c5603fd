import HeraldDomain
import HeraldHTTPServer
import HeraldEntities

extension StoreError: HTTPErrorConvertible {
    /// Not found → 404; a taken unique value → 422 on its field, in Punchh's words; anything else → 503
    /// (the database is unavailable or failed: a client may retry).
    package var httpError: HTTPError {
        switch code {
        case .notFound: return .notFound(message)
        case .conflict: return .invalid(field ?? "base", "has already been taken")
        default: return HTTPError(.serviceUnavailable, field: "base", "storage unavailable, retry later")
        }
    }
}

extension DomainError: HTTPErrorConvertible {
    /// Not found → 404; a conflict or a broken rule → 422 on its field, saying why.
    package var httpError: HTTPError {
        switch code {
        // A 404 on a field names it: the request's survey, segment or geofence is not the business's.
        case .notFound: return field.map { HTTPError(.notFound, field: $0, message) } ?? .notFound(message)
        default: return .invalid(field ?? "base", message)
        }
    }
}
