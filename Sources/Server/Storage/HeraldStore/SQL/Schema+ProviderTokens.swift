extension Schema {
    /// The provider tokens (APNs's signed JWT, FCM's OAuth access token) each credential sends with, sealed, so that
    /// every node and every restart uses the one Apple or Google already accepted instead of making its own: Apple
    /// refuses a key's new token within 20 minutes of the last (`TooManyProviderTokenUpdates`). `renewing_owner`
    /// and `renewing_until` are the lease of the one node renewing it.
    static let providerTokens = Migration(version: 14, name: "provider_tokens") { dialect in
        [
            """
            CREATE TABLE provider_tokens (
                business_id BIGINT NOT NULL REFERENCES businesses(id), platform TEXT NOT NULL,
                credential_version BIGINT NOT NULL, sealed_token \(dialect.blobType), issued_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL, renewing_owner TEXT, renewing_until BIGINT,
                PRIMARY KEY (business_id, platform))
            """
        ]
    }
}
