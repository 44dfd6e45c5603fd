import HeraldModel
import HeraldStore

/// What recording or changing a check-in did.
package struct CheckinResult: Sendable {
    /// The check-in (the existing one when the POS repeated itself).
    package var checkin: Checkin
    /// Its inbox entry.
    package var notification: InboxEntry?
    /// Entries for point conversions it triggered.
    package var conversions: [InboxEntry]
    /// The user's points after it.
    package var totalPoints: Int64
    /// False when the POS had recorded it already: nothing new was written.
    package var created: Bool
}

/// What recording a redemption did.
package struct RedemptionResult: Sendable {
    /// The redemption (the existing one when the POS repeated itself).
    package var redemption: Redemption
    /// Its inbox entry.
    package var notification: InboxEntry?
    /// False when the POS had recorded it already: nothing new was written.
    package var created: Bool
}

/// A check-in the POS reports.
package struct NewCheckin: Sendable {
    /// Who.
    package var userID: Int64
    /// Where.
    package var locationID: Int64
    /// Points.
    package var points: Int64
    /// `qr`, `phone`, `online_ordering` or `pos_scanner`.
    package var source: String
    /// The POS's id for it; nil makes one: `POS_<user>_<unix time>`.
    package var transactionID: String?
    /// `.approved` (points now) or `.pending` (points on confirmation).
    package var status: Checkin.Status
    /// A survey to send with it.
    package var surveyID: Int64?
    /// The template its entry uses (checkin, pos_scanner_checkin, pending_checkin).
    package var event: EventName

    /// A check-in to record.
    package init(
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
package struct TransactionDetails: Sendable {
    /// The check-in.
    package var checkin: Checkin
    /// Where it was made (nil once the location is gone).
    package var location: Location?
    /// The survey it sent, with its survey, when that is the user's.
    package var survey: (userSurvey: UserSurvey, survey: Survey)?
    /// The user's redemptions on the same transaction.
    package var redemptions: [Redemption]

    /// The user's points before this check-in credited its own, given their `balance` now: the congratulations
    /// screen names the new membership level when the two differ.
    package func pointsBefore(balance: Int64) -> Int64 {
        checkin.status == .approved ? max(0, balance - checkin.points) : balance
    }
}
