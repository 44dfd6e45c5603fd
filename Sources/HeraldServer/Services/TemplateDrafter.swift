import Foundation
import HeraldModel
import HeraldStore

/// Drafts loyalty events through one business's templates (resolved before the store transaction starts),
/// filling `{{placeholders}}` and building the seed's payload keys.
struct TemplateDrafter: NotificationDrafter {
    let business: Business
    let templates: [EventName: NotificationTemplate]

    func draft(_ event: LoyaltyEvent, for user: User) -> NotificationDraft? {
        switch event {
        case .checkin(let checkin, let name, let location, let total):
            return make(
                name, user: user,
                values: [
                    "points": String(checkin.points), "location": location?.name ?? "",
                    "transaction_id": checkin.transactionID,
                    "total_points": String(total),
                ],
                extras: LoyaltyPayload.checkin(
                    firstCheckin: checkin.isFirst, checkinID: checkin.id, points: checkin.points,
                    transactionID: checkin.transactionID, userID: user.id, userSurveyID: checkin.userSurveyID))
        case .pointsConverted(let points, let reward, let offer, let amount, let total):
            var values = ["points": String(points), "total_points": String(total)]
            if let offer { values["reward"] = offer.name }
            if let amount { values["amount"] = Self.money(amount) }
            return make(
                reward == nil ? .pointsToCurrency : .pointsToReward, user: user,
                kind: reward == nil ? .system : .campaign,
                values: values,
                extras: reward.map { LoyaltyPayload.reward(rewardID: $0.id, userID: user.id) } ?? ["u": .int(user.id)],
                media: offer?.media, rewardID: reward?.id)
        case .rewardGranted(let reward, let offer, let name):
            return make(
                name, user: user, kind: .campaign, values: Self.offerValues(offer, reward),
                extras: LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), media: offer.media,
                rewardID: reward.id)
        case .offerExpiring(let reward, let offer):
            return make(
                .offerExpiry, user: user, kind: .campaign, values: Self.offerValues(offer, reward),
                extras: LoyaltyPayload.reward(rewardID: reward.id, userID: user.id), rewardID: reward.id)
        case .redemption(let redemption, let offer, let location):
            return make(
                .redemption, user: user,
                values: [
                    "discount": Self.money(redemption.discount), "location": location?.name ?? "",
                    "offer": offer?.name ?? "",
                ],
                extras: LoyaltyPayload.redemption(discount: redemption.discount, userID: user.id))
        case .giftCard(let card):
            return make(
                .giftCard, user: user, values: ["balance": Self.money(card.balance)],
                extras: LoyaltyPayload.giftCard(id: card.id),
                style: .background, visible: false,
                // Only the newest balance matters: one held for an offline phone replaces the one before.
                collapseID: "gc-\(card.id)")
        case .survey(let userSurvey, let survey, let location, let visit):
            // A user who never checked in is asked about the business itself: "…your last visit at Burger Co."
            return make(
                .survey, user: user, kind: .campaign,
                values: ["survey": survey.title, "location": location?.name ?? business.name],
                extras: LoyaltyPayload.survey(
                    firstCheckin: visit?.isFirst ?? false, points: visit?.points ?? 0, userID: user.id,
                    userSurveyID: userSurvey.id))
        }
    }

    private func make(
        _ event: EventName, user: User, kind: InboxKind = .system, values: [String: String], extras: JSON,
        media: MediaAttachment? = nil, rewardID: Int64? = nil, style: PushStyle = .alert, visible: Bool = true,
        collapseID: String? = nil
    ) -> NotificationDraft? {
        templates[event].flatMap {
            EventNotification(
                business: business, user: user, event: event, kind: kind, values: values, extras: extras,
                pushStyle: style, visibleInInbox: visible, media: media, rewardID: rewardID, collapseID: collapseID
            ).draft(with: $0)
        }
    }

    static func offerValues(_ offer: Offer, _ reward: Reward) -> [String: String] {
        ["offer": offer.name, "discount": money(offer.discount), "expiry": reward.expiresAt.map(date) ?? ""]
    }

    /// An amount as people write it: `3`, `2.50`.
    static func money(_ value: Double) -> String {
        value.rounded() == value ? String(Int64(value)) : String(format: "%.2f", value)
    }

    /// A date as `2026-12-31`.
    static func date(_ time: Timestamp) -> String { String(time.iso8601.prefix(10)) }
}
