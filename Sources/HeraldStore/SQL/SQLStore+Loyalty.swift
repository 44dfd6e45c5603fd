import HeraldModel

extension SQLStore {
    // MARK: - Rows

    static let offerColumns = """
        id, business_id, name, description, image_url, media_url, media_type, discount, available_from, \
        available_until, expires_at, valid_for_seconds, created_at
        """

    static func offer(_ row: SQLRow, from o: Int = 0) -> Offer {
        Offer(
            id: row.int(o), businessID: row.int(o + 1), name: row.text(o + 2), description: row.text(o + 3),
            imageURL: row.optionalText(o + 4),
            media: row.optionalText(o + 5).map { MediaAttachment(url: $0, type: row.text(o + 6)) },
            discount: row.double(o + 7), availableFrom: row.optionalTimestamp(o + 8),
            availableUntil: row.optionalTimestamp(o + 9),
            expiresAt: row.optionalTimestamp(o + 10), validForSeconds: row.optionalInt(o + 11),
            createdAt: row.timestamp(o + 12))
    }

    static let rewardColumns = """
        id, business_id, user_id, offer_id, source, granted_at, expires_at, read_at, redemption_code, redeemed_at, \
        reminder_sent_at, notification_id
        """

    static func reward(_ row: SQLRow, from o: Int = 0) -> Reward {
        Reward(
            id: row.int(o), businessID: row.int(o + 1), userID: row.int(o + 2), offerID: row.int(o + 3),
            source: row.text(o + 4),
            grantedAt: row.timestamp(o + 5), expiresAt: row.optionalTimestamp(o + 6),
            readAt: row.optionalTimestamp(o + 7),
            redemptionCode: row.optionalText(o + 8), redeemedAt: row.optionalTimestamp(o + 9),
            reminderSentAt: row.optionalTimestamp(o + 10), notificationID: row.optionalInt(o + 11))
    }

    static let checkinColumns = """
        id, business_id, user_id, location_id, points, source, transaction_id, status, is_first, user_survey_id, \
        notification_id, created_at, updated_at
        """

    static func checkin(_ row: SQLRow) -> Checkin {
        Checkin(
            id: row.int(0), businessID: row.int(1), userID: row.int(2), locationID: row.int(3), points: row.int(4),
            source: row.text(5), transactionID: row.text(6), status: Checkin.Status(row.text(7)), isFirst: row.bool(8),
            userSurveyID: row.optionalInt(9), notificationID: row.optionalInt(10), createdAt: row.timestamp(11),
            updatedAt: row.timestamp(12))
    }

    static let redemptionColumns =
        "id, business_id, user_id, location_id, discount, reward_id, transaction_id, notification_id, created_at"

    static func redemption(_ row: SQLRow) -> Redemption {
        Redemption(
            id: row.int(0), businessID: row.int(1), userID: row.int(2), locationID: row.int(3), discount: row.double(4),
            rewardID: row.optionalInt(5), transactionID: row.optionalText(6), notificationID: row.optionalInt(7),
            createdAt: row.timestamp(8))
    }

    static let giftCardColumns = "id, business_id, uuid, user_id, balance, updated_at"

    static func giftCard(_ row: SQLRow) -> GiftCard {
        GiftCard(
            id: row.int(0), businessID: row.int(1), uuid: row.text(2), userID: row.int(3), balance: row.double(4),
            updatedAt: row.timestamp(5))
    }

    static let surveyColumns = "id, business_id, title, definition, url, created_at"

    static func survey(_ row: SQLRow, from o: Int = 0) -> Survey {
        Survey(
            id: row.int(o), businessID: row.int(o + 1), title: row.text(o + 2), definition: parseJSON(row.text(o + 3)),
            url: row.optionalText(o + 4), createdAt: row.timestamp(o + 5))
    }

    static let userSurveyColumns = "id, business_id, survey_id, user_id, location_id, created_at, submitted_at, answers"

    static func userSurvey(_ row: SQLRow) -> UserSurvey {
        UserSurvey(
            id: row.int(0), businessID: row.int(1), surveyID: row.int(2), userID: row.int(3),
            locationID: row.optionalInt(4),
            createdAt: row.timestamp(5), submittedAt: row.optionalTimestamp(6),
            answers: row.optionalText(7).map(parseJSON))
    }

    // MARK: - Lookups inside a transaction

    /// The user, or nil when there is none; database failures are thrown, never taken for "no such user". The row
    /// stays locked to the transaction (where the dialect locks rows): what is read here (points, banked currency)
    /// is written back from it.
    private func findUser(_ db: any SQLConnection, businessID: Int64, _ id: Int64) throws -> User? {
        try db.row(
            """
            SELECT \(raw: Self.userColumns) FROM users WHERE id = \(id) AND business_id = \(businessID)
            \(raw: database.dialect.forUpdate)
            """
        ).map(Self.user)
    }

    private func requireUser(_ db: any SQLConnection, businessID: Int64, _ id: Int64) throws -> User {
        guard let user = try findUser(db, businessID: businessID, id) else { throw StoreError.notFound("user") }
        return user
    }

    /// The location, or nil when there is none; database failures are thrown.
    private func findLocation(_ db: any SQLConnection, businessID: Int64, _ id: Int64) throws -> Location? {
        try db.row(
            "SELECT \(raw: Self.locationColumns) FROM locations WHERE id = \(id) AND business_id = \(businessID)"
        ).map(Self.location)
    }

    private func requireLocation(_ db: any SQLConnection, businessID: Int64, _ id: Int64) throws -> Location {
        guard let location = try findLocation(db, businessID: businessID, id) else {
            throw StoreError.notFound("location")
        }
        return location
    }

    private func notify(_ draft: NotificationDraft?, _ db: any SQLConnection, at now: Timestamp) throws -> InboxEntry? {
        try draft.map { try insertNotification($0, on: db, at: now) }
    }

    private func grant(_ offer: Offer, to userID: Int64, source: String, _ db: any SQLConnection, at now: Timestamp)
        throws -> Reward
    {
        Self.reward(
            try db.row(
                """
                INSERT INTO rewards (business_id, user_id, offer_id, source, granted_at, expires_at)
                VALUES (\(offer.businessID), \(userID), \(offer.id), \(source), \(now), \(offer.expiry(grantedAt: now)))
                RETURNING \(raw: Self.rewardColumns)
                """)!)
    }

    // MARK: - Offers

    public func createOffer(_ offer: Offer, at now: Timestamp) throws -> Offer {
        try database.write { db in
            guard try db.row("SELECT id FROM businesses WHERE id = \(offer.businessID)") != nil else {
                throw StoreError.notFound("business")
            }
            return Self.offer(
                try db.row(
                    """
                    INSERT INTO offers (business_id, name, description, image_url, media_url, media_type, discount, available_from,
                        available_until, expires_at, valid_for_seconds, created_at)
                    VALUES (\(offer.businessID), \(offer.name), \(offer.description), \(offer.imageURL), \(offer.media?.url),
                        \(offer.media?.type), \(offer.discount), \(offer.availableFrom), \(offer.availableUntil), \(offer.expiresAt),
                        \(offer.validForSeconds), \(now))
                    RETURNING \(raw: Self.offerColumns)
                    """)!)
        }
    }

    public func offer(businessID: Int64, id: Int64) throws -> Offer? {
        try database.read { db in
            try db.row("SELECT \(raw: Self.offerColumns) FROM offers WHERE id = \(id) AND business_id = \(businessID)")
                .map { Self.offer($0) }
        }
    }

    public func grantOffer(
        businessID: Int64, offerID: Int64, userIDs: [Int64], source: String, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> [(reward: Reward, notification: InboxEntry?)] {
        try database.write { db in
            guard
                let offer = try db.row(
                    "SELECT \(raw: Self.offerColumns) FROM offers WHERE id = \(offerID) AND business_id = \(businessID)"
                ).map({ Self.offer($0) })
            else { throw StoreError.notFound("offer") }
            var granted: [(reward: Reward, notification: InboxEntry?)] = []
            for userID in userIDs {
                guard let user = try findUser(db, businessID: businessID, userID) else { continue }
                var reward = try grant(offer, to: user.id, source: source, db, at: now)
                let entry = try notify(
                    drafter.draft(.rewardGranted(reward, offer, event: event), for: user), db, at: now)
                if let entry {
                    reward.notificationID = entry.id
                    try db.execute("UPDATE rewards SET notification_id = \(entry.id) WHERE id = \(reward.id)")
                }
                granted.append((reward, entry))
            }
            return granted
        }
    }

    private static let rewardAndOfferColumns = qualified(rewardColumns, "r") + ", " + qualified(offerColumns, "o")
    private static let rewardColumnCount = count(rewardColumns)

    public func liveRewards(userID: Int64, at now: Timestamp) throws -> [(reward: Reward, offer: Offer)] {
        try database.read { db in
            try db.rows(
                """
                SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
                WHERE r.user_id = \(userID) AND r.redeemed_at IS NULL AND (r.expires_at IS NULL OR r.expires_at > \(now))
                ORDER BY r.id DESC
                """
            ).map { (Self.reward($0), Self.offer($0, from: Self.rewardColumnCount)) }
        }
    }

    public func reward(userID: Int64, id: Int64) throws -> (reward: Reward, offer: Offer)? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
                WHERE r.id = \(id) AND r.user_id = \(userID)
                """
            ).map { (Self.reward($0), Self.offer($0, from: Self.rewardColumnCount)) }
        }
    }

    public func markRewardsRead(userID: Int64, ids: [Int64], at now: Timestamp) throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try database.write { db in
            var marked: [Int64] = []
            var entries: [Int64] = []
            try db.forEachRow(
                "SELECT id, notification_id FROM rewards WHERE user_id = \(userID) AND id IN (\(list: ids))"
            ) { row in
                marked.append(row.int(0))
                if let entry = row.optionalInt(1) { entries.append(entry) }
            }
            guard !marked.isEmpty else { return [] }
            try db.execute("UPDATE rewards SET read_at = \(now) WHERE id IN (\(list: marked)) AND read_at IS NULL")
            if !entries.isEmpty {
                let changed = try db.execute(
                    """
                    UPDATE notifications SET read_at = \(now)
                    WHERE user_id = \(userID) AND id IN (\(list: entries)) AND read_at IS NULL AND deleted_at IS NULL
                    """)
                if changed > 0 { try bumpInboxVersion(userID, on: db) }
            }
            let order = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            return marked.sorted { order[$0]! < order[$1]! }
        }
    }

    public func issueRedemptionCode(userID: Int64, rewardID: Int64, code: String, at now: Timestamp) throws -> Reward {
        try database.write { db in
            guard
                var reward = try db.row(
                    "SELECT \(raw: Self.rewardColumns) FROM rewards WHERE id = \(rewardID) AND user_id = \(userID)"
                )
                .map({ Self.reward($0) })
            else { throw StoreError.notFound("reward") }
            guard reward.redeemedAt == nil else { throw StoreError(.conflict, field: "reward_id", "already redeemed") }
            guard reward.isLive(at: now) else { throw StoreError(.conflict, field: "reward_id", "expired") }
            if reward.redemptionCode == nil {
                try db.execute("UPDATE rewards SET redemption_code = \(code) WHERE id = \(rewardID)")
                reward.redemptionCode = code
            }
            return reward
        }
    }

    public func honorRedemptionCode(
        businessID: Int64, code: String, locationID: Int64, transactionID: String?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> RedemptionResult {
        try database.write { db in
            let location = try requireLocation(db, businessID: businessID, locationID)
            guard
                let reward = try db.row(
                    "SELECT \(raw: Self.rewardColumns) FROM rewards WHERE business_id = \(businessID) AND redemption_code = \(code)"
                ).map({ Self.reward($0) })
            else { throw StoreError.notFound("redemption code") }
            if let repeated = try repeatedRedemption(
                db, businessID: businessID, transactionID: transactionID, userID: reward.userID, rewardID: reward.id,
                discount: 0)
            {
                return repeated
            }
            guard reward.redeemedAt == nil else {
                throw StoreError(.conflict, field: "redemption_code", "already redeemed")
            }
            guard reward.isLive(at: now) else { throw StoreError(.conflict, field: "redemption_code", "expired") }
            let offer = try db.row("SELECT \(raw: Self.offerColumns) FROM offers WHERE id = \(reward.offerID)").map {
                Self.offer($0)
            }
            try Reward.checkHonourable(offer, at: now)
            // Only one honour wins, even with several nodes racing on the same code.
            guard
                try db.execute(
                    "UPDATE rewards SET redeemed_at = \(now) WHERE id = \(reward.id) AND redeemed_at IS NULL") == 1
            else {
                throw StoreError(.conflict, field: "redemption_code", "already redeemed")
            }
            let user = try requireUser(db, businessID: businessID, reward.userID)
            return try insertRedemption(
                db, user: user, location: location, discount: offer?.discount ?? 0, rewardID: reward.id,
                transactionID: transactionID, offer: offer, drafter: drafter, at: now)
        }
    }

    private func insertRedemption(
        _ db: any SQLConnection, user: User, location: Location, discount: Double, rewardID: Int64?,
        transactionID: String?,
        offer: Offer?, drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> RedemptionResult {
        var redemption = Self.redemption(
            try db.row(
                """
                INSERT INTO redemptions (business_id, user_id, location_id, discount, reward_id, transaction_id, created_at)
                VALUES (\(user.businessID), \(user.id), \(location.id), \(discount), \(rewardID), \(transactionID), \(now))
                RETURNING \(raw: Self.redemptionColumns)
                """)!)
        let entry = try notify(drafter.draft(.redemption(redemption, offer, location), for: user), db, at: now)
        if let entry {
            redemption.notificationID = entry.id
            try db.execute("UPDATE redemptions SET notification_id = \(entry.id) WHERE id = \(redemption.id)")
        }
        return RedemptionResult(redemption: redemption, notification: entry, created: true)
    }

    public func createRedemption(
        businessID: Int64, userID: Int64, locationID: Int64, discount: Double, transactionID: String?,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> RedemptionResult {
        try database.write { db in
            let user = try requireUser(db, businessID: businessID, userID)
            let location = try requireLocation(db, businessID: businessID, locationID)
            if let repeated = try repeatedRedemption(
                db, businessID: businessID, transactionID: transactionID, userID: user.id, rewardID: nil,
                discount: discount)
            {
                return repeated
            }
            return try insertRedemption(
                db, user: user, location: location, discount: discount, rewardID: nil, transactionID: transactionID,
                offer: nil, drafter: drafter, at: now)
        }
    }

    /// The redemption a POS repeats, with its entry, if it is one.
    private func repeatedRedemption(
        _ db: any SQLConnection, businessID: Int64, transactionID: String?, userID: Int64, rewardID: Int64?,
        discount: Double
    ) throws -> RedemptionResult? {
        guard let transactionID else { return nil }
        try Redemption.checkTransaction(
            usedBy: transactionOwners(db, businessID: businessID, transactionID: transactionID), userID: userID)
        guard
            let existing = try db.rows(
                """
                SELECT \(raw: Self.redemptionColumns) FROM redemptions
                WHERE business_id = \(businessID) AND transaction_id = \(transactionID) ORDER BY id
                """
            ).map(Self.redemption).first(where: {
                $0.isRepeated(transactionID: transactionID, userID: userID, rewardID: rewardID, discount: discount)
            })
        else { return nil }
        return RedemptionResult(
            redemption: existing, notification: try inboxEntry(db, existing.notificationID), created: false)
    }

    /// The inbox entry `id` (a check-in's or redemption's), if any.
    private func inboxEntry(_ db: any SQLConnection, _ id: Int64?) throws -> InboxEntry? {
        try id.flatMap { id in
            try db.row("SELECT \(raw: Self.notificationColumns) FROM notifications WHERE id = \(id)").map {
                Self.notification($0)
            }
        }
    }

    /// The users whose check-ins and redemptions carry `transactionID`.
    private func transactionOwners(_ db: any SQLConnection, businessID: Int64, transactionID: String) throws
        -> [Int64]
    {
        try db.rows(
            """
            SELECT user_id FROM checkins WHERE business_id = \(businessID) AND transaction_id = \(transactionID)
            UNION SELECT user_id FROM redemptions WHERE business_id = \(businessID) AND transaction_id = \(transactionID)
            """
        ).map { $0.int(0) }
    }

    public func redemptions(businessID: Int64, transactionID: String) throws -> [Redemption] {
        try database.read { db in
            try db.rows(
                """
                SELECT \(raw: Self.redemptionColumns) FROM redemptions
                WHERE business_id = \(businessID) AND transaction_id = \(transactionID) ORDER BY id
                """
            ).map(Self.redemption)
        }
    }

    public func sendExpiryReminders(
        businessID: Int64, expiringBefore before: Timestamp, limit: Int, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [InboxEntry] {
        try database.write { db in
            let due = try db.rows(
                """
                SELECT \(raw: Self.rewardAndOfferColumns) FROM rewards r JOIN offers o ON o.id = r.offer_id
                WHERE r.business_id = \(businessID) AND r.reminder_sent_at IS NULL AND r.redeemed_at IS NULL
                  AND r.expires_at IS NOT NULL AND r.expires_at <= \(before) AND r.expires_at > \(now)
                ORDER BY r.id LIMIT \(max(0, limit))
                """
            ).map { (Self.reward($0), Self.offer($0, from: Self.rewardColumnCount)) }
            var entries: [InboxEntry] = []
            for (reward, offer) in due {
                guard
                    try db.execute(
                        "UPDATE rewards SET reminder_sent_at = \(now) WHERE id = \(reward.id) AND reminder_sent_at IS NULL"
                    ) == 1,
                    let user = try findUser(db, businessID: businessID, reward.userID)
                else { continue }
                if let entry = try notify(drafter.draft(.offerExpiring(reward, offer), for: user), db, at: now) {
                    entries.append(entry)
                }
            }
            return entries
        }
    }

    // MARK: - Check-ins

    public func recordCheckin(_ new: NewCheckin, drafter: any NotificationDrafter, at now: Timestamp) throws
        -> CheckinResult
    {
        try database.write { db in
            var user = try requireUser(db, businessID: new.businessID, new.userID)
            let location = try requireLocation(db, businessID: new.businessID, new.locationID)
            if let transactionID = new.transactionID,
                let existing = try db.row(
                    """
                    SELECT \(raw: Self.checkinColumns) FROM checkins
                    WHERE business_id = \(new.businessID) AND transaction_id = \(transactionID)
                    """
                ).map(Self.checkin)
            {
                try existing.checkRepeated(by: user.id)
                return CheckinResult(
                    checkin: existing, notification: try inboxEntry(db, existing.notificationID), conversions: [],
                    created: false)
            }
            if let transactionID = new.transactionID {
                try Redemption.checkTransaction(
                    usedBy: transactionOwners(db, businessID: new.businessID, transactionID: transactionID),
                    userID: user.id)
            }
            let transactionID =
                try new.transactionID
                ?? Checkin.generatedTransactionID(userID: user.id, at: now) { candidate in
                    try db.row(
                        "SELECT id FROM checkins WHERE business_id = \(new.businessID) AND transaction_id = \(candidate)"
                    ) != nil
                }
            let first =
                try db.row("SELECT id FROM checkins WHERE user_id = \(user.id) AND status = 'approved' LIMIT 1") == nil
            var userSurveyID: Int64?
            if let surveyID = new.surveyID {
                guard
                    try db.row("SELECT id FROM surveys WHERE id = \(surveyID) AND business_id = \(new.businessID)")
                        != nil
                else {
                    throw StoreError.notFound("survey")
                }
                userSurveyID = try db.scalar(
                    """
                    INSERT INTO user_surveys (business_id, survey_id, user_id, location_id, created_at)
                    VALUES (\(new.businessID), \(surveyID), \(user.id), \(location.id), \(now)) RETURNING id
                    """)
            }
            if new.status == .approved {
                user.points = Checkin.balance(user.points, points: new.points, from: nil, to: new.status)
                try db.execute("UPDATE users SET points = \(user.points) WHERE id = \(user.id)")
            }
            var checkin = Self.checkin(
                try db.row(
                    """
                    INSERT INTO checkins (business_id, user_id, location_id, points, source, transaction_id, status, is_first,
                        user_survey_id, created_at, updated_at)
                    VALUES (\(new.businessID), \(user.id), \(location.id), \(new.points), \(new.source), \(transactionID),
                        \(new.status.rawValue), \(first), \(userSurveyID), \(now), \(now))
                    RETURNING \(raw: Self.checkinColumns)
                    """)!)
            let entry = try notify(
                drafter.draft(
                    .checkin(checkin, event: new.event, location: location, totalPoints: user.points), for: user), db,
                at: now)
            if let entry {
                checkin.notificationID = entry.id
                try db.execute("UPDATE checkins SET notification_id = \(entry.id) WHERE id = \(checkin.id)")
            }
            let conversions = new.status == .approved ? try convertPoints(&user, db, drafter: drafter, at: now) : []
            return CheckinResult(checkin: checkin, notification: entry, conversions: conversions, created: true)
        }
    }

    /// Applies the business's conversion rule to `user`'s balance (inside the caller's transaction).
    private func convertPoints(
        _ user: inout User, _ db: any SQLConnection, drafter: any NotificationDrafter, at now: Timestamp
    ) throws
        -> [InboxEntry]
    {
        guard
            let business = try db.row(
                "SELECT \(raw: Self.businessColumns) FROM businesses WHERE id = \(user.businessID)"
            )
            .map(Self.business)
        else { return [] }
        let settings = business.settings
        let offer = try settings.conversionOfferID.flatMap { id in
            try db.row("SELECT \(raw: Self.offerColumns) FROM offers WHERE id = \(id) AND business_id = \(business.id)")
                .map { Self.offer($0) }
        }
        let conversion = PointsConversion(points: user.points, settings: settings, offer: offer, at: now)
        guard conversion.conversions > 0 else { return [] }
        var entries: [InboxEntry] = []
        for _ in 0..<conversion.conversions {
            user.points -= settings.conversionThreshold
            if settings.conversionKind == "currency" {
                user.bankedCurrency += settings.conversionCurrencyAmount
                let event = LoyaltyEvent.pointsConverted(
                    points: settings.conversionThreshold, reward: nil, offer: nil,
                    amount: settings.conversionCurrencyAmount,
                    totalPoints: user.points)
                if let entry = try notify(drafter.draft(event, for: user), db, at: now) { entries.append(entry) }
            } else if let offer {
                var reward = try grant(offer, to: user.id, source: "points_to_reward", db, at: now)
                let event = LoyaltyEvent.pointsConverted(
                    points: settings.conversionThreshold, reward: reward, offer: offer, amount: nil,
                    totalPoints: user.points)
                if let entry = try notify(drafter.draft(event, for: user), db, at: now) {
                    reward.notificationID = entry.id
                    try db.execute("UPDATE rewards SET notification_id = \(entry.id) WHERE id = \(reward.id)")
                    entries.append(entry)
                }
            }
        }
        try db.execute(
            "UPDATE users SET points = \(user.points), banked_currency = \(user.bankedCurrency) WHERE id = \(user.id)")
        return entries
    }

    public func changeCheckin(
        businessID: Int64, id: Int64, from: [Checkin.Status], to: Checkin.Status, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> CheckinResult {
        try database.write { db in
            guard
                var checkin = try db.row(
                    "SELECT \(raw: Self.checkinColumns) FROM checkins WHERE id = \(id) AND business_id = \(businessID)"
                ).map(Self.checkin)
            else { throw StoreError.notFound("check-in") }
            // The POS repeating a change whose answer it lost: one change, one notification. (Its last notification
            // tells this change from another that left the same status: a check-in approved when it was made was
            // never retried.)
            if checkin.status == to, let entry = try inboxEntry(db, checkin.notificationID),
                entry.event == event.rawValue
            {
                return CheckinResult(checkin: checkin, notification: entry, conversions: [], created: false)
            }
            guard from.contains(checkin.status) else {
                throw StoreError(.conflict, field: "status", "the check-in is \(checkin.status)")
            }
            var user = try requireUser(db, businessID: businessID, checkin.userID)
            if to == .approved && checkin.status != .approved {
                checkin.isFirst =
                    try db.row("SELECT id FROM checkins WHERE user_id = \(user.id) AND status = 'approved' LIMIT 1")
                    == nil
            }
            user.points = Checkin.balance(user.points, points: checkin.points, from: checkin.status, to: to)
            try db.execute("UPDATE users SET points = \(user.points) WHERE id = \(user.id)")
            checkin.status = to
            checkin.updatedAt = now
            let location = try findLocation(db, businessID: businessID, checkin.locationID)
            let entry = try notify(
                drafter.draft(.checkin(checkin, event: event, location: location, totalPoints: user.points), for: user),
                db, at: now)
            if let entry { checkin.notificationID = entry.id }
            try db.execute(
                """
                UPDATE checkins SET status = \(to.rawValue), is_first = \(checkin.isFirst), notification_id = \(checkin.notificationID),
                    updated_at = \(now)
                WHERE id = \(id)
                """)
            let conversions = to == .approved ? try convertPoints(&user, db, drafter: drafter, at: now) : []
            return CheckinResult(checkin: checkin, notification: entry, conversions: conversions, created: true)
        }
    }

    public func checkin(businessID: Int64, id: Int64) throws -> Checkin? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.checkinColumns) FROM checkins WHERE id = \(id) AND business_id = \(businessID)"
            ).map(Self.checkin)
        }
    }

    public func checkin(userID: Int64, transactionID: String) throws -> Checkin? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.checkinColumns) FROM checkins WHERE user_id = \(userID) AND transaction_id = \(transactionID)
                """
            ).map(Self.checkin)
        }
    }

    // MARK: - Gift cards

    public func updateGiftCard(
        businessID: Int64, uuid: String, userID: Int64, balance: Double, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> (giftCard: GiftCard, notification: InboxEntry?) {
        try database.write { db in
            let user = try requireUser(db, businessID: businessID, userID)
            let card: GiftCard
            if let existing = try db.row(
                "SELECT \(raw: Self.giftCardColumns) FROM gift_cards WHERE business_id = \(businessID) AND uuid = \(uuid)"
            ).map(Self.giftCard) {
                guard existing.userID == userID else {
                    throw StoreError(.conflict, field: "user_id", "the card belongs to another user")
                }
                try db.execute(
                    "UPDATE gift_cards SET balance = \(balance), updated_at = \(now) WHERE id = \(existing.id)")
                card = GiftCard(
                    id: existing.id, businessID: businessID, uuid: uuid, userID: userID, balance: balance,
                    updatedAt: now)
            } else {
                card = Self.giftCard(
                    try db.row(
                        """
                        INSERT INTO gift_cards (business_id, uuid, user_id, balance, updated_at)
                        VALUES (\(businessID), \(uuid), \(userID), \(balance), \(now)) RETURNING \(raw: Self.giftCardColumns)
                        """)!)
            }
            return (card, try notify(drafter.draft(.giftCard(card), for: user), db, at: now))
        }
    }

    public func giftCard(businessID: Int64, uuid: String) throws -> GiftCard? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.giftCardColumns) FROM gift_cards WHERE business_id = \(businessID) AND uuid = \(uuid)"
            )
            .map(Self.giftCard)
        }
    }

    public func giftCard(businessID: Int64, id: Int64) throws -> GiftCard? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.giftCardColumns) FROM gift_cards WHERE business_id = \(businessID) AND id = \(id)"
            )
            .map(Self.giftCard)
        }
    }

    // MARK: - Surveys

    public func createSurvey(businessID: Int64, title: String, definition: JSON, url: String?, at now: Timestamp) throws
        -> Survey
    {
        try database.write { db in
            guard try db.row("SELECT id FROM businesses WHERE id = \(businessID)") != nil else {
                throw StoreError.notFound("business")
            }
            return Self.survey(
                try db.row(
                    """
                    INSERT INTO surveys (business_id, title, definition, url, created_at)
                    VALUES (\(businessID), \(title), \(definition.encodedString), \(url), \(now)) RETURNING \(raw: Self.surveyColumns)
                    """)!)
        }
    }

    public func survey(businessID: Int64, id: Int64) throws -> Survey? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.surveyColumns) FROM surveys WHERE id = \(id) AND business_id = \(businessID)"
            ).map { Self.survey($0) }
        }
    }

    public func sendSurvey(
        businessID: Int64, surveyID: Int64, userIDs: [Int64], locationID: Int64?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [(userSurvey: UserSurvey, notification: InboxEntry?)] {
        try database.write { db in
            guard
                let survey = try db.row(
                    "SELECT \(raw: Self.surveyColumns) FROM surveys WHERE id = \(surveyID) AND business_id = \(businessID)"
                ).map({ Self.survey($0) })
            else { throw StoreError.notFound("survey") }
            let named = try locationID.map { try requireLocation(db, businessID: businessID, $0) }
            var sent: [(userSurvey: UserSurvey, notification: InboxEntry?)] = []
            for userID in userIDs {
                guard let user = try findUser(db, businessID: businessID, userID) else { continue }
                let visitAt: SQLQuery = named.map { place -> SQLQuery in "AND location_id = \(place.id)" } ?? ""
                let visit = try db.row(
                    """
                    SELECT \(raw: Self.checkinColumns) FROM checkins WHERE user_id = \(userID) AND status = 'approved' \(visitAt)
                    ORDER BY created_at DESC, id DESC LIMIT 1
                    """
                ).map(Self.checkin)
                let location = try named ?? visit.map { try requireLocation(db, businessID: businessID, $0.locationID) }
                let userSurvey = Self.userSurvey(
                    try db.row(
                        """
                        INSERT INTO user_surveys (business_id, survey_id, user_id, location_id, created_at)
                        VALUES (\(businessID), \(surveyID), \(userID), \(location?.id), \(now)) RETURNING \(raw: Self.userSurveyColumns)
                        """)!)
                let event = LoyaltyEvent.survey(userSurvey, survey, location, visit: visit)
                sent.append((userSurvey, try notify(drafter.draft(event, for: user), db, at: now)))
            }
            return sent
        }
    }

    public func userSurvey(id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)? {
        try database.read { db in
            guard
                let userSurvey = try db.row(
                    "SELECT \(raw: Self.userSurveyColumns) FROM user_surveys WHERE id = \(id)"
                ).map(Self.userSurvey),
                let survey = try db.row(
                    "SELECT \(raw: Self.surveyColumns) FROM surveys WHERE id = \(userSurvey.surveyID)"
                )
                .map({ Self.survey($0) })
            else { return nil }
            return (userSurvey, survey)
        }
    }

    public func submitSurvey(userID: Int64, id: Int64, answers: JSON, at now: Timestamp) throws -> UserSurvey {
        try database.write { db in
            guard
                var userSurvey = try db.row(
                    "SELECT \(raw: Self.userSurveyColumns) FROM user_surveys WHERE id = \(id) AND user_id = \(userID)"
                ).map(Self.userSurvey)
            else { throw StoreError.notFound("survey") }
            guard
                try db.execute(
                    """
                    UPDATE user_surveys SET submitted_at = \(now), answers = \(answers.encodedString)
                    WHERE id = \(id) AND submitted_at IS NULL
                    """) == 1
            else { throw StoreError(.conflict, field: "user_survey_id", "already submitted") }
            userSurvey.submittedAt = now
            userSurvey.answers = answers
            return userSurvey
        }
    }
}
