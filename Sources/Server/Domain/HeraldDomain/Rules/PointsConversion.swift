import HeraldModel
import HeraldStore

/// A business's rule turning points into rewards: every `threshold` points become one offer or an amount of
/// banked currency, and the points are spent.
package struct PointsConversion: Sendable, Equatable {
    /// How many conversions a balance allows.
    package let conversions: Int

    /// Applies `settings` to a balance of `points`; at most 100 conversions at once (an absurd balance can't
    /// flood a user's inbox). Points become a reward only while the business's conversion `offer` exists and
    /// can still be redeemed at `now` (not expired, its window not closed): otherwise they stay points, rather
    /// than be spent on nothing or on a reward that can never be used.
    package init(points: Int64, settings: BusinessSettings, offer: Offer?, at now: Timestamp) {
        let rewardable = offer?.acceptsConversions(at: now) ?? false
        guard settings.conversionThreshold > 0, points >= settings.conversionThreshold,
            settings.conversionKind == "currency" || rewardable
        else {
            conversions = 0
            return
        }
        conversions = Int(min(points / settings.conversionThreshold, 100))
    }
}
