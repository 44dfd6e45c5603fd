import HeraldModel

/// Offers, and the rewards granted from them. A redemption code is unique per business.
package struct OfferRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, name, description, image_url, media_url, media_type, discount_cents, available_from, \
        available_until, expires_at, valid_for_seconds, created_at
        """

    static func decode(_ row: SQLRow, from o: Int = 0) -> Offer {
        Offer(
            id: row.int(o), businessID: row.int(o + 1), name: row.text(o + 2), description: row.text(o + 3),
            imageURL: row.optionalText(o + 4),
            media: row.optionalText(o + 5).map { MediaAttachment(url: $0, type: row.text(o + 6)) },
            discount: Money(cents: row.int(o + 7)), availableFrom: row.optionalTimestamp(o + 8),
            availableUntil: row.optionalTimestamp(o + 9), expiresAt: row.optionalTimestamp(o + 10),
            validForSeconds: row.optionalInt(o + 11), createdAt: row.timestamp(o + 12))
    }

    static let rewardColumns = """
        id, business_id, user_id, offer_id, source, granted_at, expires_at, read_at, redemption_code, redeemed_at, \
        reminder_sent_at, notification_id
        """

    static func decodeReward(_ row: SQLRow, from o: Int = 0) -> Reward {
        Reward(
            id: row.int(o), businessID: row.int(o + 1), userID: row.int(o + 2), offerID: row.int(o + 3),
            source: row.text(o + 4), grantedAt: row.timestamp(o + 5), expiresAt: row.optionalTimestamp(o + 6),
            readAt: row.optionalTimestamp(o + 7), redemptionCode: row.optionalText(o + 8),
            redeemedAt: row.optionalTimestamp(o + 9), reminderSentAt: row.optionalTimestamp(o + 10),
            notificationID: row.optionalInt(o + 11))
    }

    private static let rewardAndOfferColumns =
        Columns.qualified(rewardColumns, "r") + ", " + Columns.qualified(columns, "o")
    private static let rewardColumnCount = Columns.count(rewardColumns)

    private static func decodePair(_ row: SQLRow) -> (reward: Reward, offer: Offer) {
        (decodeReward(row), decode(row, from: rewardColumnCount))
    }

    // MARK: Offers

    /// Creates an offer (its `id` and `createdAt` are the store's).
    package func insert(_ offer: Offer, at now: Timestamp) throws -> Offer {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO offers (business_id, name, description, image_url, media_url, media_type, discount_cents,
                    available_from, available_until, expires_at, valid_for_seconds, created_at)
                VALUES (\(offer.businessID), \(offer.name), \(offer.description), \(offer.imageURL), \(offer.media?.url),
                    \(offer.media?.type), \(offer.discount.cents), \(offer.availableFrom), \(offer.availableUntil),
                    \(offer.expiresAt), \(offer.validForSeconds), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The offer `id` of `businessID`.
    package func find(businessID: Int64, id: Int64) throws -> Offer? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM offers WHERE id = \(id) AND business_id = \(businessID)"
        ).map { Self.decode($0) }
    }

    // MARK: Rewards

    /// Grants `offer` to `userID`, expiring at `expiresAt`.
    package func grant(_ offer: Offer, to userID: Int64, source: String, expiresAt: Timestamp?, at now: Timestamp)
        throws -> Reward
    {
        Self.decodeReward(
            try tx.connection.row(
                """
                INSERT INTO rewards (business_id, user_id, offer_id, source, granted_at, expires_at)
                VALUES (\(offer.businessID), \(userID), \(offer.id), \(source), \(now), \(expiresAt))
                RETURNING \(raw: Self.rewardColumns)
                """)!)
    }

    /// Links a reward to the inbox entry that announced it.
    package func setNotification(rewardID: Int64, notificationID: Int64) throws {
        try tx.connection.execute("UPDATE rewards SET notification_id = \(notificationID) WHERE id = \(rewardID)")
    }

    /// A user's rewards not redeemed and not expired at `now`, with their offers, newest first.
    package func live(userID: Int64, at now: Timestamp) throws -> [(reward: Reward, offer: Offer)] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
            WHERE r.user_id = \(userID) AND r.redeemed_at IS NULL AND (r.expires_at IS NULL OR r.expires_at > \(now))
            ORDER BY r.id DESC
            """
        ).map(Self.decodePair)
    }

    /// A user's reward `id` with its offer (nil for someone else's).
    package func reward(userID: Int64, id: Int64) throws -> (reward: Reward, offer: Offer)? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
            WHERE r.id = \(id) AND r.user_id = \(userID)
            """
        ).map(Self.decodePair)
    }

    /// The reward of `businessID` holding redemption code `code`, with its offer.
    package func reward(businessID: Int64, code: String) throws -> (reward: Reward, offer: Offer)? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
            WHERE r.business_id = \(businessID) AND r.redemption_code = \(code)
            """
        ).map(Self.decodePair)
    }

    /// Which of `ids` are the user's rewards, each with the entry that announced it.
    package func owned(userID: Int64, among ids: [Int64]) throws -> [(id: Int64, notificationID: Int64?)] {
        guard !ids.isEmpty else { return [] }
        return try tx.connection.rows(
            "SELECT id, notification_id FROM rewards WHERE user_id = \(userID) AND id \(in: ids, tx.dialect)"
        ).map { ($0.int(0), $0.optionalInt(1)) }
    }

    /// Marks rewards read (those not read yet).
    package func markRead(ids: [Int64], at now: Timestamp) throws {
        guard !ids.isEmpty else { return }
        try tx.connection.execute(
            "UPDATE rewards SET read_at = \(now) WHERE id \(in: ids, tx.dialect) AND read_at IS NULL")
    }

    /// Gives a reward `code` unless it has one already; false when it had.
    package func setCode(rewardID: Int64, code: String) throws -> Bool {
        try tx.connection.execute(
            "UPDATE rewards SET redemption_code = \(code) WHERE id = \(rewardID) AND redemption_code IS NULL") == 1
    }

    /// Marks a reward redeemed, once: false when it was already.
    package func redeem(rewardID: Int64, at now: Timestamp) throws -> Bool {
        try tx.connection.execute(
            "UPDATE rewards SET redeemed_at = \(now) WHERE id = \(rewardID) AND redeemed_at IS NULL") == 1
    }

    /// Up to `limit` rewards of `businessID`, live at `now`, expiring before `before`, whose reminder has not gone
    /// out, by id.
    package func awaitingReminder(businessID: Int64, expiringBefore before: Timestamp, limit: Int, at now: Timestamp)
        throws -> [(reward: Reward, offer: Offer)]
    {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
            WHERE r.business_id = \(businessID) AND r.reminder_sent_at IS NULL AND r.redeemed_at IS NULL
              AND r.expires_at IS NOT NULL AND r.expires_at <= \(before) AND r.expires_at > \(now)
            ORDER BY r.id LIMIT \(max(0, limit))
            """
        ).map(Self.decodePair)
    }

    /// Marks a reward's expiry reminder sent, once: false when another transaction sent it.
    package func markReminderSent(rewardID: Int64, at now: Timestamp) throws -> Bool {
        try tx.connection.execute(
            "UPDATE rewards SET reminder_sent_at = \(now) WHERE id = \(rewardID) AND reminder_sent_at IS NULL") == 1
    }
}
