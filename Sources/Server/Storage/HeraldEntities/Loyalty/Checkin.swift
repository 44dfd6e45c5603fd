import HeraldModel

/// A visit that earned (or will earn) points.
public struct Checkin: Sendable, Equatable {
    /// Where it stands.
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The status name.
        public let rawValue: String
        /// The status named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// Points credited.
        public static let approved = Status("approved")
        /// Waiting for confirmation (a receipt to check): no points yet.
        public static let pending = Status("pending")
        /// Confirmation failed: no points.
        public static let failed = Status("failed")
        /// Cancelled after approval: points taken back.
        public static let void = Status("void")
        public var description: String { rawValue }
    }

    /// Store id: the payload's `i`.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Who checked in.
    public var userID: Int64
    /// Where.
    public var locationID: Int64
    /// Points earned.
    public var points: Int64
    /// `qr`, `phone`, `online_ordering` or `pos_scanner`.
    public var source: String
    /// The POS transaction: the payload's `t`.
    public var transactionID: String
    /// Where it stands.
    public var status: Status
    /// The user's first approved check-in: the payload's `f`.
    public var isFirst: Bool
    /// A survey sent with it (its user survey id: the payload's `s`).
    public var userSurveyID: Int64?
    /// Its latest inbox entry.
    public var notificationID: Int64?
    /// When it was recorded.
    public var createdAt: Timestamp
    /// When it last changed.
    public var updatedAt: Timestamp

    /// A check-in record.
    public init(
        id: Int64, businessID: Int64, userID: Int64, locationID: Int64, points: Int64, source: String,
        transactionID: String, status: Status, isFirst: Bool, userSurveyID: Int64?, notificationID: Int64? = nil,
        createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.userID = userID
        self.locationID = locationID
        self.points = points
        self.source = source
        self.transactionID = transactionID
        self.status = status
        self.isFirst = isFirst
        self.userSurveyID = userSurveyID
        self.notificationID = notificationID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A discount applied at the POS, from an offer's code or directly.
public struct Redemption: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Who.
    public var userID: Int64
    /// Where.
    public var locationID: Int64
    /// The discount: the payload's `rd`.
    public var discount: Money
    /// The reward redeemed, if it came from an offer.
    public var rewardID: Int64?
    /// The POS transaction it was applied to.
    public var transactionID: String?
    /// Its inbox entry.
    public var notificationID: Int64?
    /// When.
    public var createdAt: Timestamp

    /// A redemption record.
    public init(
        id: Int64, businessID: Int64, userID: Int64, locationID: Int64, discount: Money, rewardID: Int64?,
        transactionID: String?, notificationID: Int64? = nil, createdAt: Timestamp
    ) {
        self.id = id
        self.businessID = businessID
        self.userID = userID
        self.locationID = locationID
        self.discount = discount
        self.rewardID = rewardID
        self.transactionID = transactionID
        self.notificationID = notificationID
        self.createdAt = createdAt
    }
}

/// A gift card's balance, as the processor's webhook last reported it.
public struct GiftCard: Sendable, Equatable {
    /// Store id: the payload's `gc`.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// The processor's id for the card.
    public var uuid: String
    /// Holder.
    public var userID: Int64
    /// Balance.
    public var balance: Money
    /// When the balance was reported.
    public var updatedAt: Timestamp

    /// A gift card record.
    public init(id: Int64, businessID: Int64, uuid: String, userID: Int64, balance: Money, updatedAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.uuid = uuid
        self.userID = userID
        self.balance = balance
        self.updatedAt = updatedAt
    }
}

/// A survey a business defined (its questions as `SurveyDefinition` JSON).
public struct Survey: Sendable, Equatable {
    /// Store id.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// Title.
    public var title: String
    /// The definition's JSON.
    public var definition: JSON
    /// An external survey page (a TypeForm URL), if the business uses one instead of Herald's.
    public var url: String?
    /// When it was created.
    public var createdAt: Timestamp

    /// A survey record.
    public init(id: Int64, businessID: Int64, title: String, definition: JSON, url: String?, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.title = title
        self.definition = definition
        self.url = url
        self.createdAt = createdAt
    }
}

/// A survey sent to one user, and their answers once submitted.
public struct UserSurvey: Sendable, Equatable {
    /// Store id: the payload's `s`, the `user_survey_id` of Fetch User Survey.
    public var id: Int64
    /// Owning business.
    public var businessID: Int64
    /// The survey.
    public var surveyID: Int64
    /// Who answers.
    public var userID: Int64
    /// The visit it asks about, if any.
    public var locationID: Int64?
    /// When it was sent.
    public var createdAt: Timestamp
    /// When the answers came.
    public var submittedAt: Timestamp?
    /// The answers (validated by `SurveyDefinition`).
    public var answers: JSON?

    /// A user survey record.
    public init(
        id: Int64, businessID: Int64, surveyID: Int64, userID: Int64, locationID: Int64?, createdAt: Timestamp,
        submittedAt: Timestamp? = nil, answers: JSON? = nil
    ) {
        self.id = id
        self.businessID = businessID
        self.surveyID = surveyID
        self.userID = userID
        self.locationID = locationID
        self.createdAt = createdAt
        self.submittedAt = submittedAt
        self.answers = answers
    }
}
