import HeraldModel

/// Offers, check-ins, redemptions, gift cards and surveys. Each operation that notifies writes its records,
/// its inbox entries and their delivery jobs in one transaction, drafting the entries with `drafter`.
public protocol LoyaltyStore: Sendable {
    // MARK: Offers

    /// Creates an offer.
    func createOffer(_ offer: Offer, at now: Timestamp) throws -> Offer
    /// The offer `id` of `businessID`.
    func offer(businessID: Int64, id: Int64) throws -> Offer?
    /// Grants `offerID` to each user (unknown users are skipped), with an inbox entry each.
    func grantOffer(
        businessID: Int64, offerID: Int64, userIDs: [Int64], source: String, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> [(reward: Reward, notification: InboxEntry?)]
    /// A user's rewards that are still redeemable at `now`, with their offers, newest first.
    func liveRewards(userID: Int64, at now: Timestamp) throws -> [(reward: Reward, offer: Offer)]
    /// A user's reward `id` with its offer (nil for someone else's).
    func reward(userID: Int64, id: Int64) throws -> (reward: Reward, offer: Offer)?
    /// Marks a user's rewards read, and their announcing inbox entries; returns the ids that were the user's.
    func markRewardsRead(userID: Int64, ids: [Int64], at now: Timestamp) throws -> [Int64]
    /// Gives a live reward its redemption code (keeping the one it has); throws not found, or a conflict on
    /// `reward_id` when it is redeemed or expired.
    func issueRedemptionCode(userID: Int64, rewardID: Int64, code: String, at now: Timestamp) throws -> Reward
    /// Honours a redemption code at the POS, once: marks the reward redeemed and records the redemption with its
    /// inbox entry. Not found for an unknown code; a conflict on `redemption_code` when used or expired. The same
    /// code with the same `transactionID` again (a POS retrying) is the redemption already recorded.
    func honorRedemptionCode(
        businessID: Int64, code: String, locationID: Int64, transactionID: String?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> RedemptionResult
    /// Records a discount applied at the POS (not from a code), with its inbox entry. The same discount for the
    /// same user with the same `transactionID` again (a POS retrying) is the redemption already recorded.
    func createRedemption(
        businessID: Int64, userID: Int64, locationID: Int64, discount: Double, transactionID: String?,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> RedemptionResult
    /// The redemptions applied to a POS transaction.
    func redemptions(businessID: Int64, transactionID: String) throws -> [Redemption]
    /// Sends the expiry reminder of up to `limit` live rewards of `businessID` expiring before `before` whose
    /// reminder hasn't gone out; each reward's reminder is marked sent in the same transaction as its entry,
    /// so it is sent once, whatever restarts happen.
    func sendExpiryReminders(
        businessID: Int64, expiringBefore before: Timestamp, limit: Int, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [InboxEntry]

    // MARK: Check-ins

    /// Records a check-in, crediting its points if approved and converting them past the business's threshold.
    /// A transaction id seen before returns the first check-in unchanged (`created` false).
    func recordCheckin(_ checkin: NewCheckin, drafter: any NotificationDrafter, at now: Timestamp) throws
        -> CheckinResult
    /// Moves a check-in from one of `from` to `to` (approving credits its points, voiding takes them back), with
    /// `event`'s entry. Not found for another business's; a conflict on `status` from any other status.
    func changeCheckin(
        businessID: Int64, id: Int64, from: [Checkin.Status], to: Checkin.Status, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> CheckinResult
    /// The check-in `id` of `businessID`.
    func checkin(businessID: Int64, id: Int64) throws -> Checkin?
    /// A user's check-in with `transactionID`.
    func checkin(userID: Int64, transactionID: String) throws -> Checkin?

    // MARK: Gift cards

    /// Stores a gift card's reported balance (creating the card on first report) and drafts its silent push.
    /// A card reported for another user than before is a conflict on `user_id`.
    func updateGiftCard(
        businessID: Int64, uuid: String, userID: Int64, balance: Double, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> (giftCard: GiftCard, notification: InboxEntry?)
    /// The gift card `uuid` of `businessID`.
    func giftCard(businessID: Int64, uuid: String) throws -> GiftCard?
    /// The gift card of `businessID` whose store id is `id` (the push's `gc`).
    func giftCard(businessID: Int64, id: Int64) throws -> GiftCard?

    // MARK: Surveys

    /// Creates a survey.
    func createSurvey(businessID: Int64, title: String, definition: JSON, url: String?, at now: Timestamp) throws
        -> Survey
    /// The survey `id` of `businessID`.
    func survey(businessID: Int64, id: Int64) throws -> Survey?
    /// Sends a survey to each user (unknown users skipped), with an inbox entry each.
    func sendSurvey(
        businessID: Int64, surveyID: Int64, userIDs: [Int64], locationID: Int64?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [(userSurvey: UserSurvey, notification: InboxEntry?)]
    /// The user survey `id` with its survey.
    func userSurvey(id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)?
    /// Stores a user's answers, once; a conflict on `user_survey_id` when already submitted.
    func submitSurvey(userID: Int64, id: Int64, answers: JSON, at now: Timestamp) throws -> UserSurvey
}

extension LoyaltyStore {
    /// A user's survey `id` with its survey (nil for someone else's).
    public func userSurvey(userID: Int64, id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)? {
        try userSurvey(id: id).flatMap { $0.userSurvey.userID == userID ? $0 : nil }
    }
}
