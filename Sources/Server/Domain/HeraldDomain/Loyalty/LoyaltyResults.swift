import HeraldModel
import HeraldStore

/// What recording or changing a check-in did.
public struct CheckinResult: Sendable {
    /// The check-in (the existing one when the POS repeated itself).
    public var checkin: Checkin
    /// Its inbox entry.
    public var notification: InboxEntry?
    /// Entries for point conversions it triggered.
    public var conversions: [InboxEntry]
    /// The user's points after it.
    public var totalPoints: Int64
    /// False when the POS had recorded it already: nothing new was written.
    public var created: Bool
}

/// What recording a redemption did.
public struct RedemptionResult: Sendable {
    /// The redemption (the existing one when the POS repeated itself).
    public var redemption: Redemption
    /// Its inbox entry.
    public var notification: InboxEntry?
    /// False when the POS had recorded it already: nothing new was written.
    public var created: Bool
}

/// A check-in the POS reports.
public struct NewCheckin: Sendable {
    /// Who.
    public var userID: Int64
    /// Where.
    public var locationID: Int64
    /// Points.
    public var points: Int64
    /// `qr`, `phone`, `online_ordering` or `pos_scanner`.
    public var source: String
    /// The POS's id for it; nil makes one: `POS_<user>_<unix time>`.
    public var transactionID: String?
    /// `.approved` (points now) or `.pending` (points on confirmation).
    public var status: Checkin.Status
    /// A survey to send with it.
    public var surveyID: Int64?
    /// The template its entry uses (checkin, pos_scanner_checkin, pending_checkin).
    public var event: EventName

    /// A check-in to record.
    public init(
        userID: Int64, locationID: Int64, points: Int64, source: String, transactionID: String?,
        status: Checkin.Status = .approved, surveyID: Int64? = nil, event: EventName = .checkin
    ) {
        self.userID = userID
        self.locationID = locationID
        self.points = points
        self.source = source
        self.transactionID = transactionID
        self.status = status
        self.surveyID = surveyID
        self.event = event
    }
}

/// A check-in as its user's Transaction Details screen shows it (`LoyaltyService.transaction`).
public struct TransactionDetails: Sendable {
    /// The check-in.
    public var checkin: Checkin
    /// Where it was made (nil once the location is gone).
    public var location: Location?
    /// The survey it sent, with its survey, when that is the user's.
    public var survey: (userSurvey: UserSurvey, survey: Survey)?
    /// The user's redemptions on the same transaction.
    public var redemptions: [Redemption]

    /// The user's points before this check-in credited its own, given their `balance` now: the congratulations
    /// screen names the new membership level when the two differ.
    public func pointsBefore(balance: Int64) -> Int64 {
        checkin.status == .approved ? max(0, balance - checkin.points) : balance
    }
}
