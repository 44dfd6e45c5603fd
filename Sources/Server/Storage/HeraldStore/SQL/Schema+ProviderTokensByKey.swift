extension Schema {
    /// Provider tokens by who signs them (`signer`), not by business: `business:<id>` for a business's own credential
    /// (FCM's access token), `key:<fingerprint>` for an APNs key, whose token every business holding that key shares
    /// — Apple refuses a key's new token within 20 minutes of the last, whichever business it came from. The rows
    /// stored so far move over as `business:` rows, where an APNs credential finds the token it sent with until its
    /// key's first is saved. Numbered apart from the versions other branches take; any order lands (see `Migration`).
    static let providerTokensByKey = Migration(version: 32, name: "provider_tokens_by_key") { dialect in
        [
            """
            CREATE TABLE provider_tokens_by_signer (
                platform TEXT NOT NULL, signer TEXT NOT NULL, credential_version BIGINT NOT NULL,
                sealed_token \(dialect.blobType), issued_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                renewing_owner TEXT, renewing_until BIGINT, PRIMARY KEY (platform, signer))
            """,
            """
            INSERT INTO provider_tokens_by_signer (platform, signer, credential_version, sealed_token, issued_at, expires_at)
            SELECT platform, 'business:' || CAST(business_id AS TEXT), credential_version, sealed_token, issued_at,
                expires_at
            FROM provider_tokens WHERE sealed_token IS NOT NULL
            """,
            "DROP TABLE provider_tokens",
            "ALTER TABLE provider_tokens_by_signer RENAME TO provider_tokens",
        ]
    }
}
