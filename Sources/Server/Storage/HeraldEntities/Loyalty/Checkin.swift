import HeraldModel

/// A visit that earned (or will earn) points.
package struct Checkin: Sendable, Equatable {
    /// Where it stands.
    package struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The status name.
        package let rawValue: String
        /// The status named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// Points credited.
        package static let approved = Status("approved")
        /// Waiting for confirmation (a receipt to check): no points yet.
        package static let pending = Status("pending")
        /// Confirmation failed: no points.
        package static let failed = Status("failed")
        /// Cancelled after approval: points taken back.
        package static let void = Status("void")
        package var description: String { rawValue }
    }

    /// Store id: the payload's `i`.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Who checked in.
    package var userID: Int64
    /// Where.
    package var locationID: Int64
    /// Points earned.
    package var points: Int64
    /// `qr`, `phone`, `online_ordering` or `pos_scanner`.
    package var source: String
    /// The POS transaction: the payload's `t`.
    package var transactionID: String
    /// Where it stands.
    package var status: Status
    /// The user's first approved check-in: the payload's `f`.
    package var isFirst: Bool
    /// A survey sent with it (its user survey id: the payload's `s`).
    package var userSurveyID: Int64?
    /// Its latest inbox entry.
    package var notificationID: Int64?
    /// When it was recorded.
    package var createdAt: Timestamp
    /// When it last changed.
    package var updatedAt: Timestamp

    /// A check-in record.
    package init(
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
package struct Redemption: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Who.
    package var userID: Int64
    /// Where.
    package var locationID: Int64
    /// The discount: the payload's `rd`.
    package var discount: Money
    /// The reward redeemed, if it came from an offer.
    package var rewardID: Int64?
    /// The POS transaction it was applied to.
    package var transactionID: String?
    /// Its inbox entry.
    package var notificationID: Int64?
    /// When.
    package var createdAt: Timestamp

    /// A redemption record.
    package init(
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
package struct GiftCard: Sendable, Equatable {
    /// Store id: the payload's `gc`.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// The processor's id for the card.
    package var uuid: String
    /// Holder.
    package var userID: Int64
    /// Balance.
    package var balance: Money
    /// When the balance was reported.
    package var updatedAt: Timestamp

    /// A gift card record.
    package init(id: Int64, businessID: Int64, uuid: String, userID: Int64, balance: Money, updatedAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.uuid = uuid
        self.userID = userID
        self.balance = balance
        self.updatedAt = updatedAt
    }
}

/// A survey a business defined (its questions as `SurveyDefinition` JSON).
package struct Survey: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// Title.
    package var title: String
    /// The definition's JSON.
    package var definition: JSON
    /// An external survey page (a TypeForm URL), if the business uses one instead of Herald's.
    package var url: String?
    /// When it was created.
    package var createdAt: Timestamp

    /// A survey record.
    package init(id: Int64, businessID: Int64, title: String, definition: JSON, url: String?, createdAt: Timestamp) {
        self.id = id
        self.businessID = businessID
        self.title = title
        self.definition = definition
        self.url = url
        self.createdAt = createdAt
    }
}

/// A survey sent to one user, and their answers once submitted.
package struct UserSurvey: Sendable, Equatable {
    /// Store id: the payload's `s`, the `user_survey_id` of Fetch User Survey.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// The survey.
    package var surveyID: Int64
    /// Who answers.
    package var userID: Int64
    /// The visit it asks about, if any.
    package var locationID: Int64?
    /// When it was sent.
    package var createdAt: Timestamp
    /// When the answers came.
    package var submittedAt: Timestamp?
    /// The answers (validated by `SurveyDefinition`).
    package var answers: JSON?

    /// A user survey record.
    package init(
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
