import HeraldHTTP
import HeraldStore

extension StoreError: HTTPErrorConvertible {
    /// Not found → 404; a taken unique value → 422 on its field, in Punchh's words; anything else → 503
    /// (the database is unavailable or failed: a client may retry).
    public var httpError: HTTPError {
        switch code {
        case .notFound: return .notFound(message)
        case .conflict:
            // Unique fields read as Punchh words them; other conflicts (a used code, a survey answered) say why.
            let unique: Set<String> = ["email", "phone", "client"]
            let field = self.field ?? "base"
            return .invalid(field, unique.contains(field) ? "has already been taken" : message)
        default: return HTTPError(.serviceUnavailable, field: "base", "storage unavailable, retry later")
        }
    }
}
