extension Schema {
    /// The one-time code mailed to prove an imported customer's email, one per user (a new one replaces the last):
    /// its keyed hash, when it expires and how often it was tried (`attempts`), and how many codes were mailed since
    /// `window_start` (`window_codes`). Counted in the database so that every node sharing it counts the same tries.
    /// Numbered apart from the versions other branches take; any order lands (see `Migration`).
    static let emailCodes = Migration(version: 34, name: "email_codes") { dialect in
        [
            """
            CREATE TABLE email_codes (
                user_id BIGINT PRIMARY KEY REFERENCES users(id), code_hash \(dialect.blobType) NOT NULL,
                expires_at BIGINT NOT NULL, attempts BIGINT NOT NULL, window_start BIGINT NOT NULL,
                window_codes BIGINT NOT NULL)
            """
        ]
    }
}
