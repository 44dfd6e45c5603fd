import HeraldCrypto
import HeraldDomain
import HeraldModel

/// The one-time code that proves a sign-up owns the email of a customer the business imported: 8 random digits,
/// mailed, and stored only as a hash keyed with the server's key and bound to the user record (a copy of the database
/// alone does not give the codes away). How long a code lasts and how often it may be tried is the domain's
/// (`EmailCodePolicy`), counted in the store.
///
/// ```swift
/// let code = EmailProof.newCode()                                         // mailed
/// accounts.issueEmailCode(userID: user.id, codeHash: proof.hash(code, userID: user.id))
/// accounts.tryEmailCode(userID: user.id, codeHash: proof.hash(offered, userID: user.id))
/// ```
struct EmailProof: Sendable {
    let sealer: SecretSealer

    /// Digits in a code.
    static let digits = 8

    /// A new code: `digits` decimal digits, each of its 10^8 values as likely as the others.
    static func newCode() -> String {
        let range: UInt32 = 100_000_000
        let usable = UInt32.max - UInt32.max % range  // below this, `% range` is uniform
        while true {
            let number = SecureRandom.bytes(count: 4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard number < usable else { continue }
            let text = String(number % range)
            return String(repeating: "0", count: digits - text.count) + text
        }
    }

    /// The keyed hash stored for `code` of `userID`.
    func hash(_ code: String, userID: Int64) -> [UInt8] {
        sealer.authenticationCode(for: Array("\(userID)\n\(code)".utf8), purpose: .emailProof)
    }
}
