import HeraldModel

/// Something that happened to a user, for which a loyalty operation asks the server for an inbox entry
/// (through its templates) inside the operation's own transaction.
public enum LoyaltyEvent: Sendable {
    /// A check-in recorded or changed; `event` is the template's (checkin, pos_scanner_checkin, pending_checkin,
    /// checkin_void, checkin_retry_success, checkin_retry_fail). `totalPoints` is the balance after it.
    case checkin(Checkin, event: EventName, location: Location?, totalPoints: Int64)
    /// Points converted into an offer (`reward`) or banked currency (`amount`).
    case pointsConverted(points: Int64, reward: Reward?, offer: Offer?, amount: Double?, totalPoints: Int64)
    /// An offer granted (welcome_offer, campaign_offer).
    case rewardGranted(Reward, Offer, event: EventName)
    /// A reward about to expire.
    case offerExpiring(Reward, Offer)
    /// A redemption at the POS.
    case redemption(Redemption, Offer?, Location?)
    /// A gift card's new balance.
    case giftCard(GiftCard)
    /// A survey sent, about `visit` (the user's latest approved check-in, at the survey's location when it
    /// names one) and `location` (the one named, else the visit's).
    case survey(UserSurvey, Survey, Location?, visit: Checkin?)
}

/// Turns a loyalty event into an inbox entry through the business's templates; nil when the business
/// disabled that event. Called inside a store transaction: it must not call the store.
public protocol NotificationDrafter: Sendable {
    /// The draft for `event` happening to `user`.
    func draft(_ event: LoyaltyEvent, for user: User) -> NotificationDraft?
}

/// The outcome of recording a redemption.
public struct RedemptionResult: Sendable {
    /// The redemption (the existing one when the POS repeated it).
    public var redemption: Redemption
    /// Its inbox entry.
    public var notification: InboxEntry?
    /// False when the POS had recorded it already: nothing new was written.
    public var created: Bool

    /// A result.
    public init(redemption: Redemption, notification: InboxEntry?, created: Bool) {
        self.redemption = redemption
        self.notification = notification
        self.created = created
    }
}

/// What recording a check-in did.
public struct CheckinResult: Sendable {
    /// The check-in (the existing one when the transaction id was seen before).
    public var checkin: Checkin
    /// Its inbox entry.
    public var notification: InboxEntry?
    /// Entries for point conversions it triggered.
    public var conversions: [InboxEntry]
    /// False when the transaction id had been recorded already: nothing new was written.
    public var created: Bool

    /// A result.
    public init(checkin: Checkin, notification: InboxEntry?, conversions: [InboxEntry], created: Bool) {
        self.checkin = checkin
        self.notification = notification
        self.conversions = conversions
        self.created = created
    }
}
