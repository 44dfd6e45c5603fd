import HeraldModel
import HeraldStore

extension LoyaltyService {
    /// A user's live rewards with their offers, as the offer-details screen lists them.
    package func liveRewards(userID: Int64) throws -> [(reward: Reward, offer: Offer)] {
        let now = clock.now()
        return try store.read { try $0.offers.live(userID: userID, at: now) }
    }

    /// The user's check-in `transactionID` with what the Transaction Details screen (the push's `t`) shows of it:
    /// its location, the survey it sent and the redemptions on the same ticket — only the user's own. Not found
    /// when the user has no check-in with that transaction id.
    package func transaction(businessID: Int64, userID: Int64, transactionID: String) throws -> TransactionDetails {
        try store.read { tx in
            guard let checkin = try tx.checkins.find(userID: userID, transactionID: transactionID) else {
                throw DomainError.notFound("transaction")
            }
            let sent = try checkin.userSurveyID.flatMap { try tx.surveys.userSurvey(id: $0) }
            return TransactionDetails(
                checkin: checkin, location: try tx.locations.find(businessID: businessID, id: checkin.locationID),
                survey: sent.flatMap { $0.userSurvey.userID == userID ? $0 : nil },
                redemptions: try tx.redemptions.all(businessID: businessID, transactionID: transactionID).filter {
                    $0.userID == userID
                })
        }
    }

    /// A user's gift card, named by the processor's `uuid` or by Herald's `id` for it (the push's `gc`), so an app
    /// may ask with either. Not found when neither names a card of theirs.
    package func giftCard(businessID: Int64, userID: Int64, uuid: String, id: Int64?) throws -> GiftCard {
        func own(_ card: GiftCard?) -> GiftCard? { card?.userID == userID ? card : nil }
        let card = try store.read { tx in
            try own(tx.giftCards.find(businessID: businessID, uuid: uuid))
                ?? own(id.flatMap { try tx.giftCards.find(businessID: businessID, id: $0) })
        }
        guard let card else { throw DomainError.notFound("gift card") }
        return card
    }
}
