import HeraldModel
import HeraldStore

extension Offer {
    /// When a grant made at `grantedAt` expires: the offer's own expiry or its validity after the grant,
    /// whichever comes first.
    package func expiry(grantedAt: Timestamp) -> Timestamp? {
        let relative = validForSeconds.map { grantedAt.adding(.seconds($0)) }
        switch (expiresAt, relative) {
        case (let fixed?, let relative?): return min(fixed, relative)
        case (let fixed?, nil): return fixed
        case (nil, let relative?): return relative
        default: return nil
        }
    }

    /// True when it may be granted or redeemed at `now`: within its window and not expired (a grant would be
    /// dead on arrival, announced in the inbox and never listed).
    package func isAvailable(at now: Timestamp) -> Bool {
        (availableFrom.map { $0 <= now } ?? true) && (availableUntil.map { now < $0 } ?? true)
            && (expiresAt.map { now < $0 } ?? true)
    }

    /// True while points may still turn into it: not expired and its window not closed.
    func acceptsConversions(at now: Timestamp) -> Bool {
        (expiresAt.map { now < $0 } ?? true) && (availableUntil.map { now < $0 } ?? true)
    }
}

extension Reward {
    /// Redeemable at `now`: not redeemed, not expired.
    package func isLive(at now: Timestamp) -> Bool { redeemedAt == nil && (expiresAt.map { now < $0 } ?? true) }
}

/// Redemption codes: short, unambiguous, upper-case.
package enum RedemptionCode {
    /// Letters and digits without look-alikes (no 0/O, 1/I/L).
    package static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    /// A random 8-character code.
    package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
