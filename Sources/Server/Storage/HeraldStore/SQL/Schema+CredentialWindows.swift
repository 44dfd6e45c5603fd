extension Schema {
    /// Each credential's congestion window as a node last held it (`DeliveryEngine`), shared by the nodes: a node
    /// starting to send for a credential starts from it rather than from slow start. `found` is 1 when a refusal for
    /// load set it (the provider's limit, grown from additively), 0 while it was still doubling. Not tied to
    /// `credentials`: a window outlives a replaced credential of the same business, whose provider is the same.
    /// Numbered apart from the versions other branches take; any order lands (see `Migration`).
    static let credentialWindows = Migration(version: 37, name: "credential_windows") { _ in
        [
            """
            CREATE TABLE credential_windows (
                business_id BIGINT NOT NULL, platform TEXT NOT NULL, window_limit BIGINT NOT NULL,
                found BIGINT NOT NULL, kept_at BIGINT NOT NULL, PRIMARY KEY (business_id, platform))
            """
        ]
    }
}
