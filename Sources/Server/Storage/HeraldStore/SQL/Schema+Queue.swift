extension Schema {
    /// A claimed push left two partial indexes on `status = 'queued'`: the due index and a `(business_id, platform)`
    /// one that only a credential's replacement and the admin's "retry now" read. Each entry moved cost ~1.3 µs a
    /// push (measured on the benchmark's 100,000-row queue: 12.0–12.9 → 10.2–11.5 µs of SQLite CPU a push). The due
    /// index now carries the business and platform, so those rare writes filter it without reading rows: a scan
    /// of the queued jobs (20 ms for 100,000) where it was a lookup.
    static let queueIndexes = Migration(version: 11, name: "queue_indexes") { _ in
        [
            "DROP INDEX deliveries_business",
            "DROP INDEX deliveries_due",
            "CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id, business_id, platform) WHERE status = 'queued'",
        ]
    }
}
