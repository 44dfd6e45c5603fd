import HeraldModel

/// Check-ins: a transaction id is unique per business.
package struct CheckinRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, user_id, location_id, points, source, transaction_id, status, is_first, user_survey_id, \
        notification_id, created_at, updated_at
        """

    static func decode(_ row: SQLRow) -> Checkin {
        Checkin(
            id: row.int(0), businessID: row.int(1), userID: row.int(2), locationID: row.int(3), points: row.int(4),
            source: row.text(5), transactionID: row.text(6), status: Checkin.Status(row.text(7)), isFirst: row.bool(8),
            userSurveyID: row.optionalInt(9), notificationID: row.optionalInt(10), createdAt: row.timestamp(11),
            updatedAt: row.timestamp(12))
    }

    /// Records a check-in (its id and times are the store's).
    package func insert(_ checkin: Checkin, at now: Timestamp) throws -> Checkin {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO checkins (business_id, user_id, location_id, points, source, transaction_id, status, is_first,
                    user_survey_id, created_at, updated_at)
                VALUES (\(checkin.businessID), \(checkin.userID), \(checkin.locationID), \(checkin.points), \(checkin.source),
                    \(checkin.transactionID), \(checkin.status.rawValue), \(checkin.isFirst), \(checkin.userSurveyID),
                    \(now), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The check-in `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Checkin? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM checkins WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// The check-in of `businessID` with `transactionID`.
    package func find(businessID: Int64, transactionID: String) throws -> Checkin? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM checkins
            WHERE business_id = \(businessID) AND transaction_id = \(transactionID)
            """
        ).map(Self.decode)
    }

    /// A user's check-in with `transactionID`.
    package func find(userID: Int64, transactionID: String) throws -> Checkin? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM checkins WHERE user_id = \(userID) AND transaction_id = \(transactionID)"
        ).map(Self.decode)
    }

    /// Whether the user has an approved check-in.
    package func hasApproved(userID: Int64) throws -> Bool {
        try tx.connection.row("SELECT id FROM checkins WHERE user_id = \(userID) AND status = 'approved' LIMIT 1")
            != nil
    }

    /// The user's latest approved check-in, at `locationID` when given.
    package func latestApproved(userID: Int64, locationID: Int64?) throws -> Checkin? {
        let at: SQLQuery = locationID.map { id -> SQLQuery in "AND location_id = \(id)" } ?? ""
        return try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM checkins WHERE user_id = \(userID) AND status = 'approved' \(at)
            ORDER BY created_at DESC, id DESC LIMIT 1
            """
        ).map(Self.decode)
    }

    /// The users whose check-ins and redemptions carry `transactionID`.
    package func transactionOwners(businessID: Int64, transactionID: String) throws -> [Int64] {
        try tx.connection.rows(
            """
            SELECT user_id FROM checkins WHERE business_id = \(businessID) AND transaction_id = \(transactionID)
            UNION SELECT user_id FROM redemptions WHERE business_id = \(businessID) AND transaction_id = \(transactionID)
            """
        ).map { $0.int(0) }
    }

    /// Moves a check-in to `status` only if it is in one of `from` (another transaction may have moved it first):
    /// returns whether it moved.
    package func changeStatus(
        id: Int64, from: [Checkin.Status], to status: Checkin.Status, isFirst: Bool, at now: Timestamp
    ) throws -> Bool {
        try tx.connection.execute(
            """
            UPDATE checkins SET status = \(status.rawValue), is_first = \(isFirst), updated_at = \(now)
            WHERE id = \(id) AND status IN (\(list: from.map(\.rawValue)))
            """) == 1
    }

    /// Links a check-in to its latest inbox entry.
    package func setNotification(checkinID: Int64, notificationID: Int64) throws {
        try tx.connection.execute("UPDATE checkins SET notification_id = \(notificationID) WHERE id = \(checkinID)")
    }
}

/// Redemptions at the POS.
package struct RedemptionRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns =
        "id, business_id, user_id, location_id, discount_cents, reward_id, transaction_id, notification_id, created_at"

    static func decode(_ row: SQLRow) -> Redemption {
        Redemption(
            id: row.int(0), businessID: row.int(1), userID: row.int(2), locationID: row.int(3),
            discount: Money(cents: row.int(4)), rewardID: row.optionalInt(5), transactionID: row.optionalText(6),
            notificationID: row.optionalInt(7), createdAt: row.timestamp(8))
    }

    /// Records a redemption (its id and time are the store's).
    package func insert(_ redemption: Redemption, at now: Timestamp) throws -> Redemption {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO redemptions (business_id, user_id, location_id, discount_cents, reward_id, transaction_id,
                    created_at)
                VALUES (\(redemption.businessID), \(redemption.userID), \(redemption.locationID), \(redemption.discount.cents),
                    \(redemption.rewardID), \(redemption.transactionID), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// Links a redemption to its inbox entry.
    package func setNotification(redemptionID: Int64, notificationID: Int64) throws {
        try tx.connection.execute(
            "UPDATE redemptions SET notification_id = \(notificationID) WHERE id = \(redemptionID)")
    }

    /// The redemptions applied to a POS transaction, by id.
    package func all(businessID: Int64, transactionID: String) throws -> [Redemption] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM redemptions
            WHERE business_id = \(businessID) AND transaction_id = \(transactionID) ORDER BY id
            """
        ).map(Self.decode)
    }
}

/// Gift cards: a processor's uuid is unique per business.
package struct GiftCardRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, business_id, uuid, user_id, balance_cents, updated_at"

    static func decode(_ row: SQLRow) -> GiftCard {
        GiftCard(
            id: row.int(0), businessID: row.int(1), uuid: row.text(2), userID: row.int(3),
            balance: Money(cents: row.int(4)), updatedAt: row.timestamp(5))
    }

    /// Stores a card's balance: creates the card for `userID`, or updates it if it is `userID`'s. Nil when the card
    /// is another user's (nothing is written then).
    package func saveBalance(businessID: Int64, uuid: String, userID: Int64, balance: Money, at now: Timestamp) throws
        -> GiftCard?
    {
        try tx.connection.row(
            """
            INSERT INTO gift_cards (business_id, uuid, user_id, balance_cents, updated_at)
            VALUES (\(businessID), \(uuid), \(userID), \(balance.cents), \(now))
            ON CONFLICT (business_id, uuid) DO UPDATE SET balance_cents = excluded.balance_cents,
                updated_at = excluded.updated_at
            WHERE gift_cards.user_id = excluded.user_id
            RETURNING \(raw: Self.columns)
            """
        ).map(Self.decode)
    }

    /// The gift card `uuid` of `businessID`.
    package func find(businessID: Int64, uuid: String) throws -> GiftCard? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM gift_cards WHERE business_id = \(businessID) AND uuid = \(uuid)"
        ).map(Self.decode)
    }

    /// The gift card of `businessID` whose store id is `id` (the push's `gc`).
    package func find(businessID: Int64, id: Int64) throws -> GiftCard? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM gift_cards WHERE business_id = \(businessID) AND id = \(id)"
        ).map(Self.decode)
    }
}

/// Surveys, and the ones sent to users.
package struct SurveyRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = "id, business_id, title, definition, url, created_at"

    static func decode(_ row: SQLRow) -> Survey {
        Survey(
            id: row.int(0), businessID: row.int(1), title: row.text(2), definition: Columns.json(row.text(3)),
            url: row.optionalText(4), createdAt: row.timestamp(5))
    }

    static let userSurveyColumns = "id, business_id, survey_id, user_id, location_id, created_at, submitted_at, answers"

    static func decodeUserSurvey(_ row: SQLRow) -> UserSurvey {
        UserSurvey(
            id: row.int(0), businessID: row.int(1), surveyID: row.int(2), userID: row.int(3),
            locationID: row.optionalInt(4), createdAt: row.timestamp(5), submittedAt: row.optionalTimestamp(6),
            answers: row.optionalText(7).map(Columns.json))
    }

    /// Creates a survey.
    package func insert(businessID: Int64, title: String, definition: JSON, url: String?, at now: Timestamp) throws
        -> Survey
    {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO surveys (business_id, title, definition, url, created_at)
                VALUES (\(businessID), \(title), \(definition.encodedString), \(url), \(now)) RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The survey `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Survey? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM surveys WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.decode)
    }

    /// Sends a survey to a user, about a visit at `locationID`.
    package func send(_ survey: Survey, to userID: Int64, locationID: Int64?, at now: Timestamp) throws -> UserSurvey {
        Self.decodeUserSurvey(
            try tx.connection.row(
                """
                INSERT INTO user_surveys (business_id, survey_id, user_id, location_id, created_at)
                VALUES (\(survey.businessID), \(survey.id), \(userID), \(locationID), \(now))
                RETURNING \(raw: Self.userSurveyColumns)
                """)!)
    }

    /// The user survey `id` with its survey.
    package func userSurvey(id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)? {
        guard
            let userSurvey = try tx.connection.row(
                "SELECT \(raw: Self.userSurveyColumns) FROM user_surveys WHERE id = \(id)"
            ).map(Self.decodeUserSurvey),
            let survey = try tx.connection.row(
                "SELECT \(raw: Self.columns) FROM surveys WHERE id = \(userSurvey.surveyID)"
            ).map(Self.decode)
        else { return nil }
        return (userSurvey, survey)
    }

    /// Stores a user's answers, once: false when the survey isn't theirs or was already answered.
    package func submit(userID: Int64, id: Int64, answers: JSON, at now: Timestamp) throws -> Bool {
        try tx.connection.execute(
            """
            UPDATE user_surveys SET submitted_at = \(now), answers = \(answers.encodedString)
            WHERE id = \(id) AND user_id = \(userID) AND submitted_at IS NULL
            """) == 1
    }
}
