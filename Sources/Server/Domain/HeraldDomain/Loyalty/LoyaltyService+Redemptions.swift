import HeraldModel
import HeraldStore

extension LoyaltyService {
    /// Honours a redemption code at the POS, once: marks the reward redeemed and records the redemption with its
    /// entry. Not found for an unknown code; a conflict on `redemption_code` when used, expired or its offer is
    /// not available now. The same code with the same `transactionID` again (a POS retrying) is the redemption
    /// already recorded.
    package func honorRedemptionCode(business: Business, code: String, locationID: Int64, transactionID: String?)
        throws -> RedemptionResult
    {
        let now = clock.now()
        return try store.transaction { tx in
            let place = try location(tx, businessID: business.id, locationID)
            guard let (reward, offer) = try tx.offers.reward(businessID: business.id, code: code) else {
                throw DomainError.notFound("redemption code")
            }
            if let repeated = try repeatedRedemption(
                tx, businessID: business.id, transactionID: transactionID, userID: reward.userID, rewardID: reward.id,
                discount: .zero)
            {
                return repeated
            }
            guard reward.redeemedAt == nil else {
                throw DomainError(.conflict, field: "redemption_code", "already redeemed")
            }
            guard reward.isLive(at: now) else { throw DomainError(.conflict, field: "redemption_code", "expired") }
            guard offer.isAvailable(at: now) else {
                throw DomainError(.conflict, field: "redemption_code", "the offer is not available now")
            }
            // Only one honour wins, even with several nodes racing on the same code.
            guard try tx.offers.redeem(rewardID: reward.id, at: now) else {
                throw DomainError(.conflict, field: "redemption_code", "already redeemed")
            }
            // A reward a campaign granted counts in its report.
            if let campaignID = CampaignMetric.campaignID(rewardSource: reward.source) {
                try tx.campaigns.count(.redeemed, campaignID: campaignID)
            }
            let user = try lockUser(tx, businessID: business.id, reward.userID)
            return try record(
                Redemption(
                    id: 0, businessID: business.id, userID: user.id, locationID: place.id, discount: offer.discount,
                    rewardID: reward.id, transactionID: transactionID, createdAt: now),
                offer: offer, location: place, user: user, business: business, tx, at: now)
        }
    }

    /// Records a discount applied at the POS (not from a code), with its entry. The same discount for the same
    /// user with the same `transactionID` again (a POS retrying) is the redemption already recorded.
    package func recordDiscount(
        business: Business, userID: Int64, locationID: Int64, discount: Money, transactionID: String?
    ) throws -> RedemptionResult {
        let now = clock.now()
        return try store.transaction { tx in
            let user = try lockUser(tx, businessID: business.id, userID)
            let place = try location(tx, businessID: business.id, locationID)
            if let repeated = try repeatedRedemption(
                tx, businessID: business.id, transactionID: transactionID, userID: user.id, rewardID: nil,
                discount: discount)
            {
                return repeated
            }
            return try record(
                Redemption(
                    id: 0, businessID: business.id, userID: user.id, locationID: place.id, discount: discount,
                    rewardID: nil, transactionID: transactionID, createdAt: now),
                offer: nil, location: place, user: user, business: business, tx, at: now)
        }
    }

    private func record(
        _ new: Redemption, offer: Offer?, location: Location, user: User, business: Business, _ tx: StoreTransaction,
        at now: Timestamp
    ) throws -> RedemptionResult {
        var redemption = try tx.redemptions.insert(new, at: now)
        let notifier = notifications.notifier(for: business, in: tx, at: now)
        let entry = try notifier.notify(LoyaltyNotices.redemption(redemption, offer, location, user: user))
        if let entry {
            redemption.notificationID = entry.id
            try tx.redemptions.setNotification(redemptionID: redemption.id, notificationID: entry.id)
        }
        return RedemptionResult(redemption: redemption, notification: entry, created: true)
    }

    /// The redemption a POS repeats, with its entry, if it is one; another user's transaction is a conflict.
    private func repeatedRedemption(
        _ tx: StoreTransaction, businessID: Int64, transactionID: String?, userID: Int64, rewardID: Int64?,
        discount: Money
    ) throws -> RedemptionResult? {
        guard let transactionID else { return nil }
        try Redemption.checkTransaction(
            usedBy: tx.checkins.transactionOwners(businessID: businessID, transactionID: transactionID),
            userID: userID)
        guard
            let existing = try tx.redemptions.all(businessID: businessID, transactionID: transactionID).first(where: {
                $0.isRepeated(transactionID: transactionID, userID: userID, rewardID: rewardID, discount: discount)
            })
        else { return nil }
        return RedemptionResult(
            redemption: existing, notification: try entry(tx, existing.notificationID), created: false)
    }
}
