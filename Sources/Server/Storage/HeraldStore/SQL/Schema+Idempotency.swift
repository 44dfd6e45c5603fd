extension Schema {
    /// What each kept `Idempotency-Key` answered, with a digest of the request it answered: the same key with
    /// another request is refused (`idempotency_key_reused`) rather than silently answered as the first.
    static let idempotencyRequests = Migration(version: 13, name: "idempotency_requests") { _ in
        ["ALTER TABLE idempotency_keys ADD COLUMN request_hash TEXT"]
    }
}
