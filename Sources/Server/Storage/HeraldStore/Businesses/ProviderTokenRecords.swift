import HeraldModel

/// A provider token as stored: sealed, with the credential it was made with and its times.
package struct StoredProviderToken: Sendable, Equatable {
    /// The sealed token text.
    package var sealedToken: [UInt8]
    /// The credential it was made with (its `updated_at`): a business's token of a replaced credential is not used.
    package var credentialVersion: Timestamp
    /// When it was made.
    package var issuedAt: Timestamp
    /// When it stops being accepted.
    package var expiresAt: Timestamp

    /// A stored token.
    package init(sealedToken: [UInt8], credentialVersion: Timestamp, issuedAt: Timestamp, expiresAt: Timestamp) {
        self.sealedToken = sealedToken
        self.credentialVersion = credentialVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The provider tokens the credentials send with, one per signer and platform, shared by every node; and the lease
/// that lets one node at a time renew one. A signer is a business's own credential (`signer(businessID:)`) or a
/// signing key every business holding it shares (`signer(keyFingerprint:)`).
package struct ProviderTokenRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    /// The signer of a token of `businessID`'s own credential.
    package static func signer(businessID: Int64) -> String { "business:\(businessID)" }

    /// The signer of a token of the key whose fingerprint is `keyFingerprint`, whichever business holds it.
    package static func signer(keyFingerprint: String) -> String { "key:" + keyFingerprint }

    /// The token stored for `signer` on `platform`, if one was saved.
    package func find(signer: String, platform: PushPlatform) throws -> StoredProviderToken? {
        try tx.connection.row(
            """
            SELECT sealed_token, credential_version, issued_at, expires_at FROM provider_tokens
            WHERE platform = \(platform.rawValue) AND signer = \(signer) AND sealed_token IS NOT NULL
            """
        ).map {
            StoredProviderToken(
                sealedToken: $0.blob(0), credentialVersion: $0.timestamp(1), issuedAt: $0.timestamp(2),
                expiresAt: $0.timestamp(3))
        }
    }

    /// Takes the lease to renew the token of `signer` on `platform` for `owner` until `until`, unless another owner
    /// holds it past `now`; returns whether `owner` holds it now.
    package func beginRenewal(
        signer: String, platform: PushPlatform, owner: String, until: Timestamp, at now: Timestamp
    ) throws -> Bool {
        // A row for the lease alone (no token yet) if there is none; else the lease, if no other owner holds it.
        try tx.connection.execute(
            """
            INSERT INTO provider_tokens
                (platform, signer, credential_version, issued_at, expires_at, renewing_owner, renewing_until)
            VALUES (\(platform.rawValue), \(signer), 0, 0, 0, \(owner), \(until))
            ON CONFLICT (platform, signer) DO UPDATE
                SET renewing_owner = excluded.renewing_owner, renewing_until = excluded.renewing_until
                WHERE provider_tokens.renewing_owner IS NULL OR provider_tokens.renewing_owner = excluded.renewing_owner
                    OR provider_tokens.renewing_until <= \(now)
            """) == 1
    }

    /// Saves `token` as the one every node uses for `signer` on `platform`, and ends the renewal lease.
    package func save(_ token: StoredProviderToken, signer: String, platform: PushPlatform) throws {
        try tx.connection.execute(
            """
            INSERT INTO provider_tokens (platform, signer, credential_version, sealed_token, issued_at, expires_at)
            VALUES (\(platform.rawValue), \(signer), \(token.credentialVersion), \(token.sealedToken),
                    \(token.issuedAt), \(token.expiresAt))
            ON CONFLICT (platform, signer) DO UPDATE SET credential_version = excluded.credential_version,
                sealed_token = excluded.sealed_token, issued_at = excluded.issued_at, expires_at = excluded.expires_at,
                renewing_owner = NULL, renewing_until = NULL
            """)
    }
}
