import HeraldCrypto
import HeraldModel

/// The one-time code that proves a sign-up owns the email of a customer the business imported: 8 digits derived
/// from the server's key, the user record and the email, valid in the quarter hour it was made and the next (so
/// nothing is stored, and every node agrees). It stops working once the record is claimed: sign-up takes it only
/// for a record nobody has signed up as.
///
/// ```swift
/// let code = proof.code(userID: user.id, email: email, at: now)      // mailed
/// proof.vouches(code: offered, userID: user.id, email: email, at: now)
/// ```
struct EmailProof: Sendable {
    let sealer: SecretSealer

    /// The purpose the code is derived for.
    static let purpose = "email-proof"
    /// How long one window lasts, in seconds.
    static let window: Int64 = 900

    /// The code for `userID` and `email` in the window of `now`.
    func code(userID: Int64, email: String, at now: Timestamp) -> String {
        code(userID: userID, email: email, window: now.seconds / Self.window)
    }

    /// True when `code` is the one of this window or the one before.
    func vouches(code offered: String, userID: Int64, email: String, at now: Timestamp) -> Bool {
        let current = now.seconds / Self.window
        return [current, current - 1].contains { window in
            let expected = code(userID: userID, email: email, window: window)
            return ConstantTime.equals(Array(offered.utf8), Array(expected.utf8))
        }
    }

    private func code(userID: Int64, email: String, window: Int64) -> String {
        let mac = sealer.authenticationCode(for: Array("\(userID)\n\(email)\n\(window)".utf8), purpose: Self.purpose)
        let number = mac.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 100_000_000
        let digits = String(number)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
