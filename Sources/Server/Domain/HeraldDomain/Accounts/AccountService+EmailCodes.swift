import HeraldModel
import HeraldStore

/// How the one-time codes that prove an imported customer's email are limited: each expires, each may be tried a few
/// times, and only a few are mailed to one account an hour — at most `attemptsPerCode × codesPerWindow` guesses an
/// hour at an 8-digit code, however many addresses and nodes the guesses come through.
package struct EmailCodePolicy: Sendable {
    /// How long a code is valid.
    package var lifetime: Duration = .seconds(15 * 60)
    /// Tries of one code, right or wrong; then a new code is needed.
    package var attemptsPerCode = 5
    /// Codes mailed to one account in one `window`.
    package var codesPerWindow = 5
    /// The window the codes are counted in.
    package var window: Duration = .seconds(3600)

    /// The defaults.
    package init() {}
}

/// What became of a request for a new code.
package enum EmailCodeIssue: Sendable, Equatable {
    /// Stored, in place of the last: mail it. Valid until `expiresAt`.
    case issued(expiresAt: Timestamp)
    /// Refused: the account had its codes for this window; the next may be asked for at `retryAt`.
    case tooMany(retryAt: Timestamp)
}

/// What a try of a code came to.
package enum EmailCodeAttempt: Sendable, Equatable {
    /// It is the account's code: the email is proven.
    case proven
    /// It is not; the code may be tried `triesLeft` more times (0: a new one is needed).
    case wrong(triesLeft: Int)
    /// The account has no code to try: it expired, was tried `attemptsPerCode` times, or none was mailed.
    case unusable
}

extension AccountService {
    /// Stores a new code (its keyed hash: hashing is the caller's, as with passwords) for the imported user `userID`,
    /// replacing the last, unless the account had its codes for this window.
    package func issueEmailCode(userID: Int64, codeHash: [UInt8]) throws -> EmailCodeIssue {
        let now = clock.now()
        let policy = emailCodes
        return try store.transaction { tx in
            let windowStart = now.adding(.zero - policy.window)
            if try tx.emailCodes.issue(
                userID: userID, codeHash: codeHash, expiresAt: now.adding(policy.lifetime), windowStart: windowStart,
                most: policy.codesPerWindow, at: now)
            {
                return .issued(expiresAt: now.adding(policy.lifetime))
            }
            let opened = try tx.emailCodes.windowStart(userID: userID) ?? now
            return .tooMany(retryAt: opened.adding(policy.window))
        }
    }

    /// Tries `codeHash` (the offered code, hashed as issued) against `userID`'s code: every try counts, counted in the
    /// database before the code is compared, so that tries racing on several nodes cannot exceed the policy's.
    package func tryEmailCode(userID: Int64, codeHash: [UInt8]) throws -> EmailCodeAttempt {
        let now = clock.now()
        let most = emailCodes.attemptsPerCode
        guard let taken = try store.transaction({ try $0.emailCodes.takeAttempt(userID: userID, most: most, at: now) })
        else { return .unusable }
        return taken.codeHash == codeHash ? .proven : .wrong(triesLeft: most - taken.attempts)
    }
}
