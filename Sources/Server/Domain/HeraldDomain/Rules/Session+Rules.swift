import HeraldModel
import HeraldStore

extension Session {
    /// Usable at `now`: not revoked, not expired.
    package func isActive(at now: Timestamp) -> Bool { revokedAt == nil && now < expiresAt }
}

extension BusinessSettings {
    /// The level a balance of `points` is at: the highest whose threshold it has reached.
    package func membershipLevel(points: Int64) -> String {
        membershipLevels.last { $0.fromPoints <= points }?.name ?? membershipLevels.first?.name ?? ""
    }
}
