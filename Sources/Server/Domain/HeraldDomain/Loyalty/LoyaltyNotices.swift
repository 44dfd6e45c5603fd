import Foundation
import HeraldModel
import HeraldStore

/// How each loyalty event is worded and what its push carries: the seed's payload keys and the template values.
enum LoyaltyNotices {
    /// A check-in recorded or changed; `event` is the template's (checkin, pos_scanner_checkin, pending_checkin,
    /// checkin_void, checkin_retry_success, checkin_retry_fail). `totalPoints` is the balance after it.
    static func checkin(_ checkin: Checkin, event: EventName, location: Location?, totalPoints: Int64, user: User)
        -> Notice
    {
        Notice(
            user: user, event: event,
            values: [
                "points": String(checkin.points), "location": location?.name ?? "",
                "transaction_id": checkin.transactionID, "total_points": String(totalPoints),
            ],
            extras: LoyaltyPayload.checkin(
                firstCheckin: checkin.isFirst, checkinID: checkin.id, points: checkin.points,
                transactionID: checkin.transactionID, userID: user.id, userSurveyID: checkin.userSurveyID))
    }

    /// Points converted into an offer (`reward`) or banked currency (`amount`).
    static func pointsConverted(
        points: Int64, reward: Reward?, offer: Offer?, amount: Money?, totalPoints: Int64, user: User
    ) -> Notice {
        var values = ["points": String(points), "total_points": String(totalPoints)]
        if let offer { values["reward"] = offer.name }
        if let amount { values["amount"] = amount.text }
        return Notice(
            user: user, event: reward == nil ? .pointsToCurrency : .pointsToReward,
            kind: reward == nil ? .system : .campaign, values: values,
            extras: reward.map { LoyaltyPayload.reward(rewardID: $0.id, userID: user.id) } ?? ["u": .int(user.id)],
            media: offer?.media, rewardID: reward?.id)
    }

    /// An offer granted (welcome_offer, campaign_offer).
    static func rewardGranted(_ reward: Reward, _ offer: Offer, event: EventName, user: User) -> Notice {
        Notice(
            user: user, event: event, kind: .campaign, values: offerValues(offer, reward),
            extras: LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), media: offer.media,
            rewardID: reward.id)
    }

    /// A reward about to expire.
    static func offerExpiring(_ reward: Reward, _ offer: Offer, user: User) -> Notice {
        Notice(
            user: user, event: .offerExpiry, kind: .campaign, values: offerValues(offer, reward),
            extras: LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), rewardID: reward.id)
    }

    /// A redemption at the POS.
    static func redemption(_ redemption: Redemption, _ offer: Offer?, _ location: Location?, user: User) -> Notice {
        Notice(
            user: user, event: .redemption,
            values: [
                "discount": redemption.discount.text, "location": location?.name ?? "", "offer": offer?.name ?? "",
            ],
            extras: LoyaltyPayload.redemption(discount: redemption.discount, userID: user.id))
    }

    /// A gift card's new balance: a silent push, no entry to show.
    static func giftCard(_ card: GiftCard, user: User) -> Notice {
        Notice(
            user: user, event: .giftCard, values: ["balance": card.balance.text],
            extras: LoyaltyPayload.giftCard(id: card.id), pushStyle: .background, visibleInInbox: false,
            // Only the newest balance matters: one held for an offline phone replaces the one before.
            collapseID: "gc-\(card.id)")
    }

    /// A survey sent, about `visit` (the user's latest approved check-in, at the survey's location when it names
    /// one) and `location` (the one named, else the visit's). A user who never checked in is asked about the
    /// business itself: "…your last visit at Burger Co."
    static func survey(
        _ userSurvey: UserSurvey, _ survey: Survey, _ location: Location?, visit: Checkin?, business: Business,
        user: User
    ) -> Notice {
        Notice(
            user: user, event: .survey, kind: .campaign,
            values: ["survey": survey.title, "location": location?.name ?? business.name],
            extras: LoyaltyPayload.survey(
                firstCheckin: visit?.isFirst ?? false, points: visit?.points ?? 0, userID: user.id,
                userSurveyID: userSurvey.id))
    }

    static func offerValues(_ offer: Offer, _ reward: Reward) -> [String: String] {
        ["offer": offer.name, "discount": offer.discount.text, "expiry": reward.expiresAt.map(date) ?? ""]
    }

    /// A date as `2026-12-31`.
    static func date(_ time: Timestamp) -> String { String(time.iso8601.prefix(10)) }
}
