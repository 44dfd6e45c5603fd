extension Schema {
    /// The identity keys a business's backend signs its users' external ids with, beyond the original one (derived
    /// from the server's key, never stored): each named by its `kid`, sealed, and live until `retired_at`. The
    /// original's retirement is a row too (`kid` `original`, no key). Numbered apart from the versions other branches
    /// take; any order lands (see `Migration`).
    static let identityKeys = Migration(version: 31, name: "identity_keys") { dialect in
        [
            """
            CREATE TABLE identity_keys (
                business_id BIGINT NOT NULL REFERENCES businesses(id), kid TEXT NOT NULL,
                sealed_key \(dialect.blobType), created_at BIGINT NOT NULL, retired_at BIGINT,
                PRIMARY KEY (business_id, kid))
            """
        ]
    }
}
