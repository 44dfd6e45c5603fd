import HeraldModel

/// The one-time codes that prove a sign-up owns an imported customer's email: one per user, kept as a keyed hash,
/// with how often it was tried and how many codes were mailed lately. Every count changes in one guarded statement,
/// so that nodes sharing the database, and requests racing on one node, never try a code more often than allowed.
///
/// ```swift
/// if try tx.emailCodes.issue(userID: id, codeHash: hash, expiresAt: later, windowStart: hourAgo, most: 5, at: now) {
///     mail(code)
/// }
/// let stored = try tx.emailCodes.takeAttempt(userID: id, most: 5, at: now)   // nil: expired, used up or none
/// ```
package struct EmailCodeRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    /// Stores a new code for `userID` in place of its last one (untried, until `expiresAt`), unless `most` codes were
    /// issued to it since `windowStart` already; whether it was stored. Codes are counted in windows: the first code
    /// after `windowStart` passed the last window's start opens a new one at `now`.
    package func issue(
        userID: Int64, codeHash: [UInt8], expiresAt: Timestamp, windowStart: Timestamp, most: Int, at now: Timestamp
    ) throws -> Bool {
        try tx.connection.execute(
            """
            INSERT INTO email_codes (user_id, code_hash, expires_at, attempts, window_start, window_codes)
            VALUES (\(userID), \(codeHash), \(expiresAt), 0, \(now), 1)
            ON CONFLICT (user_id) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                attempts = 0,
                window_start = CASE WHEN email_codes.window_start <= \(windowStart) THEN excluded.window_start
                                    ELSE email_codes.window_start END,
                window_codes = CASE WHEN email_codes.window_start <= \(windowStart) THEN 1
                                    ELSE email_codes.window_codes + 1 END
            WHERE email_codes.window_start <= \(windowStart) OR email_codes.window_codes < \(Int64(most))
            """) == 1
    }

    /// When the window of `userID`'s codes started (nil: no code was ever issued to it).
    package func windowStart(userID: Int64) throws -> Timestamp? {
        try tx.connection.row("SELECT window_start FROM email_codes WHERE user_id = \(userID)")?.timestamp(0)
    }

    /// Counts one try of `userID`'s code, if it has one that has not expired at `now` and was tried fewer than `most`
    /// times: its hash and the tries counted so far, this one included. Nil when there is none to try.
    package func takeAttempt(userID: Int64, most: Int, at now: Timestamp) throws -> (codeHash: [UInt8], attempts: Int)?
    {
        try tx.connection.row(
            """
            UPDATE email_codes SET attempts = attempts + 1
            WHERE user_id = \(userID) AND attempts < \(Int64(most)) AND expires_at > \(now)
            RETURNING code_hash, attempts
            """
        ).map { ($0.blob(0), Int($0.int(1))) }
    }

    /// Forgets `userID`'s code (it proved the email, which is claimed now).
    package func delete(userID: Int64) throws {
        try tx.connection.execute("DELETE FROM email_codes WHERE user_id = \(userID)")
    }
}
