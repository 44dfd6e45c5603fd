/// An event that notifies a user (Punchh's System Messages). Open: businesses may grow their own.
public struct EventName: Sendable, Hashable, CustomStringConvertible {
    /// The event's name as used in URLs (`/templates/{event}`).
    public let rawValue: String
    /// The event named `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let checkin = EventName("checkin")
    public static let checkinRetryFail = EventName("checkin_retry_fail")
    public static let checkinRetrySuccess = EventName("checkin_retry_success")
    public static let checkinVoid = EventName("checkin_void")
    public static let pendingCheckin = EventName("pending_checkin")
    public static let posScannerCheckin = EventName("pos_scanner_checkin")
    public static let redemption = EventName("redemption")
    public static let pointsToReward = EventName("points_to_reward")
    public static let pointsToCurrency = EventName("points_to_currency")
    public static let survey = EventName("survey")
    public static let giftCard = EventName("gift_card")
    public static let news = EventName("news")
    public static let signup = EventName("signup")
    public static let welcomeOffer = EventName("welcome_offer")
    public static let offerExpiry = EventName("offer_expiry")
    /// An offer granted by a campaign.
    public static let campaignOffer = EventName("campaign_offer")

    /// Every event with a default template (the README's push payloads, plus campaign offers).
    public static let all: [EventName] = [
        .checkin, .checkinRetryFail, .checkinRetrySuccess, .checkinVoid, .pendingCheckin, .posScannerCheckin,
        .redemption, .pointsToReward, .pointsToCurrency, .survey, .giftCard, .news, .signup, .welcomeOffer,
        .offerExpiry, .campaignOffer,
    ]

    public var description: String { rawValue }
}
