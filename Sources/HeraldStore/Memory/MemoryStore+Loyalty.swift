import HeraldModel

extension MemoryStore {
    /// Inserts `draft` (when there is one) with its jobs; returns the entry.
    private func notify(_ draft: NotificationDraft?, _ state: inout State, at now: Timestamp) -> InboxEntry? {
        draft.map { Self.insert($0, into: &state, at: now, makeUUID: makeUUID) }
    }

    private func requireUser(_ state: State, businessID: Int64, _ id: Int64) throws -> User {
        guard let user = state.users[id], user.businessID == businessID else { throw StoreError.notFound("user") }
        return user
    }

    private func requireLocation(_ state: State, businessID: Int64, _ id: Int64) throws -> Location {
        guard let location = state.locations[id], location.businessID == businessID else {
            throw StoreError.notFound("location")
        }
        return location
    }

    // MARK: - Offers

    public func createOffer(_ offer: Offer, at now: Timestamp) throws -> Offer {
        try state.withLock { state in
            guard state.businesses[offer.businessID] != nil else { throw StoreError.notFound("business") }
            var created = offer
            created.id = state.makeID()
            created.createdAt = now
            state.offers[created.id] = created
            return created
        }
    }

    public func offer(businessID: Int64, id: Int64) throws -> Offer? {
        state.withLock { state in state.offers[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    private func grant(
        _ offer: Offer, to user: User, source: String, _ state: inout State, at now: Timestamp
    ) -> Reward {
        let reward = Reward(
            id: state.makeID(), businessID: offer.businessID, userID: user.id, offerID: offer.id, source: source,
            grantedAt: now, expiresAt: offer.expiry(grantedAt: now))
        state.rewards[reward.id] = reward
        return reward
    }

    public func grantOffer(
        businessID: Int64, offerID: Int64, userIDs: [Int64], source: String, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> [(reward: Reward, notification: InboxEntry?)] {
        try state.withLock { state in
            guard let offer = state.offers[offerID], offer.businessID == businessID else {
                throw StoreError.notFound("offer")
            }
            var granted: [(reward: Reward, notification: InboxEntry?)] = []
            for userID in userIDs {
                guard let user = state.users[userID], user.businessID == businessID else { continue }
                var reward = grant(offer, to: user, source: source, &state, at: now)
                let entry = notify(
                    drafter.draft(.rewardGranted(reward, offer, event: event), for: user), &state, at: now)
                reward.notificationID = entry?.id
                state.rewards[reward.id] = reward
                granted.append((reward, entry))
            }
            return granted
        }
    }

    public func liveRewards(userID: Int64, at now: Timestamp) throws -> [(reward: Reward, offer: Offer)] {
        state.withLock { state in
            state.rewards.values.filter { $0.userID == userID && $0.isLive(at: now) }
                .sorted { $0.id > $1.id }
                .compactMap { reward in state.offers[reward.offerID].map { (reward, $0) } }
        }
    }

    public func reward(userID: Int64, id: Int64) throws -> (reward: Reward, offer: Offer)? {
        state.withLock { state in
            guard let reward = state.rewards[id], reward.userID == userID, let offer = state.offers[reward.offerID]
            else {
                return nil
            }
            return (reward, offer)
        }
    }

    public func markRewardsRead(userID: Int64, ids: [Int64], at now: Timestamp) throws -> [Int64] {
        state.withLock { state in
            var marked: [Int64] = []
            var entryIDs: [Int64] = []
            for id in ids where !marked.contains(id) {
                guard var reward = state.rewards[id], reward.userID == userID else { continue }
                if reward.readAt == nil { reward.readAt = now }
                state.rewards[id] = reward
                marked.append(id)
                if let entry = reward.notificationID { entryIDs.append(entry) }
            }
            var changed = false
            for id in entryIDs where state.notifications[id]?.readAt == nil && !state.deletedNotifications.contains(id)
            {
                state.notifications[id]!.readAt = now
                changed = true
            }
            if changed { state.users[userID]?.inboxVersion += 1 }
            return marked
        }
    }

    public func issueRedemptionCode(userID: Int64, rewardID: Int64, code: String, at now: Timestamp) throws -> Reward {
        try state.withLock { state in
            guard var reward = state.rewards[rewardID], reward.userID == userID else {
                throw StoreError.notFound("reward")
            }
            guard reward.redeemedAt == nil else { throw StoreError(.conflict, field: "reward_id", "already redeemed") }
            guard reward.isLive(at: now) else { throw StoreError(.conflict, field: "reward_id", "expired") }
            if reward.redemptionCode == nil {
                reward.redemptionCode = code
                state.rewards[rewardID] = reward
            }
            return reward
        }
    }

    public func honorRedemptionCode(
        businessID: Int64, code: String, locationID: Int64, transactionID: String?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> RedemptionResult {
        try state.withLock { state in
            let location = try requireLocation(state, businessID: businessID, locationID)
            guard
                var reward = state.rewards.values.first(where: {
                    $0.businessID == businessID && $0.redemptionCode == code
                })
            else { throw StoreError.notFound("redemption code") }
            if let repeated = try repeatedRedemption(
                state, businessID: businessID, transactionID: transactionID, userID: reward.userID,
                rewardID: reward.id, discount: 0)
            {
                return repeated
            }
            guard reward.redeemedAt == nil else {
                throw StoreError(.conflict, field: "redemption_code", "already redeemed")
            }
            guard reward.isLive(at: now) else { throw StoreError(.conflict, field: "redemption_code", "expired") }
            let offer = state.offers[reward.offerID]
            try Reward.checkHonourable(offer, at: now)
            reward.redeemedAt = now
            state.rewards[reward.id] = reward
            let user = try requireUser(state, businessID: businessID, reward.userID)
            var redemption = Redemption(
                id: state.makeID(), businessID: businessID, userID: user.id, locationID: location.id,
                discount: offer?.discount ?? 0, rewardID: reward.id, transactionID: transactionID, createdAt: now)
            let entry = notify(drafter.draft(.redemption(redemption, offer, location), for: user), &state, at: now)
            redemption.notificationID = entry?.id
            state.redemptions[redemption.id] = redemption
            return RedemptionResult(redemption: redemption, notification: entry, created: true)
        }
    }

    public func createRedemption(
        businessID: Int64, userID: Int64, locationID: Int64, discount: Double, transactionID: String?,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> RedemptionResult {
        try state.withLock { state in
            let user = try requireUser(state, businessID: businessID, userID)
            let location = try requireLocation(state, businessID: businessID, locationID)
            if let repeated = try repeatedRedemption(
                state, businessID: businessID, transactionID: transactionID, userID: user.id, rewardID: nil,
                discount: discount)
            {
                return repeated
            }
            var redemption = Redemption(
                id: state.makeID(), businessID: businessID, userID: user.id, locationID: location.id,
                discount: discount,
                rewardID: nil, transactionID: transactionID, createdAt: now)
            let entry = notify(drafter.draft(.redemption(redemption, nil, location), for: user), &state, at: now)
            redemption.notificationID = entry?.id
            state.redemptions[redemption.id] = redemption
            return RedemptionResult(redemption: redemption, notification: entry, created: true)
        }
    }

    /// The redemption a POS repeats, with its entry, if it is one.
    private func repeatedRedemption(
        _ state: State, businessID: Int64, transactionID: String?, userID: Int64, rewardID: Int64?, discount: Double
    ) throws -> RedemptionResult? {
        guard let transactionID else { return nil }
        try Redemption.checkTransaction(
            usedBy: transactionOwners(state, businessID: businessID, transactionID: transactionID), userID: userID)
        guard
            let existing = state.redemptions.values.first(where: {
                $0.businessID == businessID
                    && $0.isRepeated(
                        transactionID: transactionID, userID: userID, rewardID: rewardID, discount: discount)
            })
        else { return nil }
        return RedemptionResult(
            redemption: existing, notification: existing.notificationID.flatMap { state.notifications[$0] },
            created: false)
    }

    /// The users whose check-ins and redemptions carry `transactionID`.
    private func transactionOwners(_ state: State, businessID: Int64, transactionID: String) -> [Int64] {
        state.checkins.values.filter { $0.businessID == businessID && $0.transactionID == transactionID }.map(\.userID)
            + state.redemptions.values.filter { $0.businessID == businessID && $0.transactionID == transactionID }
            .map(\.userID)
    }

    public func redemptions(businessID: Int64, transactionID: String) throws -> [Redemption] {
        state.withLock { state in
            state.redemptions.values.filter { $0.businessID == businessID && $0.transactionID == transactionID }
                .sorted { $0.id < $1.id }
        }
    }

    public func sendExpiryReminders(
        businessID: Int64, expiringBefore before: Timestamp, limit: Int, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [InboxEntry] {
        state.withLock { state in
            let due = state.rewards.values.filter { reward in
                reward.businessID == businessID && reward.reminderSentAt == nil && reward.isLive(at: now)
                    && (reward.expiresAt.map { $0 <= before } ?? false)
            }.sorted { $0.id < $1.id }.prefix(max(0, limit))
            var entries: [InboxEntry] = []
            for var reward in due {
                reward.reminderSentAt = now
                state.rewards[reward.id] = reward
                guard let offer = state.offers[reward.offerID], let user = state.users[reward.userID] else { continue }
                if let entry = notify(drafter.draft(.offerExpiring(reward, offer), for: user), &state, at: now) {
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
        try state.withLock { state in
            let user = try requireUser(state, businessID: new.businessID, new.userID)
            let location = try requireLocation(state, businessID: new.businessID, new.locationID)
            if let transactionID = new.transactionID,
                let existing = state.checkins.values.first(where: {
                    $0.businessID == new.businessID && $0.transactionID == transactionID
                })
            {
                try existing.checkRepeated(by: user.id)
                return CheckinResult(
                    checkin: existing, notification: existing.notificationID.flatMap { state.notifications[$0] },
                    conversions: [], created: false)
            }
            if let transactionID = new.transactionID {
                try Redemption.checkTransaction(
                    usedBy: transactionOwners(state, businessID: new.businessID, transactionID: transactionID),
                    userID: user.id)
            }
            let transactionID =
                new.transactionID
                ?? Checkin.generatedTransactionID(userID: user.id, at: now) { candidate in
                    state.checkins.values.contains { $0.businessID == new.businessID && $0.transactionID == candidate }
                }
            let first = !state.checkins.values.contains { $0.userID == user.id && $0.status == .approved }
            var userSurveyID: Int64?
            if let surveyID = new.surveyID {
                guard let found = state.surveys[surveyID], found.businessID == new.businessID else {
                    throw StoreError.notFound("survey")
                }
                let userSurvey = UserSurvey(
                    id: state.makeID(), businessID: new.businessID, surveyID: surveyID, userID: user.id,
                    locationID: location.id, createdAt: now)
                state.userSurveys[userSurvey.id] = userSurvey
                userSurveyID = userSurvey.id
            }
            var checkin = Checkin(
                id: state.makeID(), businessID: new.businessID, userID: user.id, locationID: location.id,
                points: new.points,
                source: new.source, transactionID: transactionID, status: new.status, isFirst: first,
                userSurveyID: userSurveyID, createdAt: now, updatedAt: now)
            state.users[user.id]!.points = Checkin.balance(user.points, points: new.points, from: nil, to: new.status)
            let total = state.users[user.id]!.points
            let entry = notify(
                drafter.draft(
                    .checkin(checkin, event: new.event, location: location, totalPoints: total),
                    for: state.users[user.id]!),
                &state, at: now)
            checkin.notificationID = entry?.id
            state.checkins[checkin.id] = checkin
            let conversions = new.status == .approved ? convertPoints(user.id, drafter: drafter, &state, at: now) : []
            return CheckinResult(checkin: checkin, notification: entry, conversions: conversions, created: true)
        }
    }

    /// Applies the business's conversion rule to the user's balance.
    private func convertPoints(
        _ userID: Int64, drafter: any NotificationDrafter, _ state: inout State, at now: Timestamp
    ) -> [InboxEntry] {
        guard let user = state.users[userID], let settings = state.businesses[user.businessID]?.settings else {
            return []
        }
        let offer = settings.conversionOfferID.flatMap { state.offers[$0] }.flatMap {
            $0.businessID == user.businessID ? $0 : nil
        }
        let conversion = PointsConversion(points: user.points, settings: settings, offer: offer, at: now)
        guard conversion.conversions > 0 else { return [] }
        var entries: [InboxEntry] = []
        for _ in 0..<conversion.conversions {
            state.users[userID]!.points -= settings.conversionThreshold
            let current = state.users[userID]!
            if settings.conversionKind == "currency" {
                state.users[userID]!.bankedCurrency += settings.conversionCurrencyAmount
                let draft = drafter.draft(
                    .pointsConverted(
                        points: settings.conversionThreshold, reward: nil, offer: nil,
                        amount: settings.conversionCurrencyAmount, totalPoints: current.points),
                    for: state.users[userID]!)
                if let entry = notify(draft, &state, at: now) { entries.append(entry) }
            } else if let offer {
                var reward = grant(offer, to: current, source: "points_to_reward", &state, at: now)
                let draft = drafter.draft(
                    .pointsConverted(
                        points: settings.conversionThreshold, reward: reward, offer: offer, amount: nil,
                        totalPoints: current.points),
                    for: current)
                let entry = notify(draft, &state, at: now)
                reward.notificationID = entry?.id
                state.rewards[reward.id] = reward
                if let entry { entries.append(entry) }
            }
        }
        return entries
    }

    public func changeCheckin(
        businessID: Int64, id: Int64, from: [Checkin.Status], to: Checkin.Status, event: EventName,
        drafter: any NotificationDrafter, at now: Timestamp
    ) throws -> CheckinResult {
        try state.withLock { state in
            guard var checkin = state.checkins[id], checkin.businessID == businessID else {
                throw StoreError.notFound("check-in")
            }
            // The POS repeating a change whose answer it lost (see SQLStore.changeCheckin).
            if checkin.status == to, let entry = checkin.notificationID.flatMap({ state.notifications[$0] }),
                entry.event == event.rawValue
            {
                return CheckinResult(checkin: checkin, notification: entry, conversions: [], created: false)
            }
            guard from.contains(checkin.status) else {
                throw StoreError(.conflict, field: "status", "the check-in is \(checkin.status)")
            }
            if to == .approved && checkin.status != .approved {
                checkin.isFirst = !state.checkins.values.contains {
                    $0.userID == checkin.userID && $0.status == .approved
                }
            }
            state.users[checkin.userID]!.points = Checkin.balance(
                state.users[checkin.userID]!.points, points: checkin.points, from: checkin.status, to: to)
            checkin.status = to
            checkin.updatedAt = now
            let user = state.users[checkin.userID]!
            let entry = notify(
                drafter.draft(
                    .checkin(
                        checkin, event: event, location: state.locations[checkin.locationID], totalPoints: user.points),
                    for: user),
                &state, at: now)
            if let entry { checkin.notificationID = entry.id }
            state.checkins[id] = checkin
            let conversions = to == .approved ? convertPoints(user.id, drafter: drafter, &state, at: now) : []
            return CheckinResult(checkin: checkin, notification: entry, conversions: conversions, created: true)
        }
    }

    public func checkin(businessID: Int64, id: Int64) throws -> Checkin? {
        state.withLock { state in state.checkins[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    public func checkin(userID: Int64, transactionID: String) throws -> Checkin? {
        state.withLock { state in
            state.checkins.values.first { $0.userID == userID && $0.transactionID == transactionID }
        }
    }

    // MARK: - Gift cards

    public func updateGiftCard(
        businessID: Int64, uuid: String, userID: Int64, balance: Double, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> (giftCard: GiftCard, notification: InboxEntry?) {
        try state.withLock { state in
            let user = try requireUser(state, businessID: businessID, userID)
            var card: GiftCard
            if let existing = state.giftCards.values.first(where: { $0.businessID == businessID && $0.uuid == uuid }) {
                guard existing.userID == userID else {
                    throw StoreError(.conflict, field: "user_id", "the card belongs to another user")
                }
                card = existing
                card.balance = balance
                card.updatedAt = now
            } else {
                card = GiftCard(
                    id: state.makeID(), businessID: businessID, uuid: uuid, userID: userID, balance: balance,
                    updatedAt: now)
            }
            state.giftCards[card.id] = card
            return (card, notify(drafter.draft(.giftCard(card), for: user), &state, at: now))
        }
    }

    public func giftCard(businessID: Int64, uuid: String) throws -> GiftCard? {
        state.withLock { state in state.giftCards.values.first { $0.businessID == businessID && $0.uuid == uuid } }
    }

    public func giftCard(businessID: Int64, id: Int64) throws -> GiftCard? {
        state.withLock { state in state.giftCards[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    // MARK: - Surveys

    public func createSurvey(businessID: Int64, title: String, definition: JSON, url: String?, at now: Timestamp) throws
        -> Survey
    {
        try state.withLock { state in
            guard state.businesses[businessID] != nil else { throw StoreError.notFound("business") }
            let survey = Survey(
                id: state.makeID(), businessID: businessID, title: title, definition: definition, url: url,
                createdAt: now)
            state.surveys[survey.id] = survey
            return survey
        }
    }

    public func survey(businessID: Int64, id: Int64) throws -> Survey? {
        state.withLock { state in state.surveys[id].flatMap { $0.businessID == businessID ? $0 : nil } }
    }

    public func sendSurvey(
        businessID: Int64, surveyID: Int64, userIDs: [Int64], locationID: Int64?, drafter: any NotificationDrafter,
        at now: Timestamp
    ) throws -> [(userSurvey: UserSurvey, notification: InboxEntry?)] {
        try state.withLock { state in
            guard let survey = state.surveys[surveyID], survey.businessID == businessID else {
                throw StoreError.notFound("survey")
            }
            let named = try locationID.map { try requireLocation(state, businessID: businessID, $0) }
            var sent: [(userSurvey: UserSurvey, notification: InboxEntry?)] = []
            for userID in userIDs {
                guard let user = state.users[userID], user.businessID == businessID else { continue }
                let visit = state.checkins.values.filter {
                    $0.userID == userID && $0.status == .approved && (named == nil || $0.locationID == named?.id)
                }.max { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
                let location =
                    try named ?? visit.map { try requireLocation(state, businessID: businessID, $0.locationID) }
                let userSurvey = UserSurvey(
                    id: state.makeID(), businessID: businessID, surveyID: surveyID, userID: userID,
                    locationID: location?.id,
                    createdAt: now)
                state.userSurveys[userSurvey.id] = userSurvey
                let event = LoyaltyEvent.survey(userSurvey, survey, location, visit: visit)
                sent.append((userSurvey, notify(drafter.draft(event, for: user), &state, at: now)))
            }
            return sent
        }
    }

    public func userSurvey(id: Int64) throws -> (userSurvey: UserSurvey, survey: Survey)? {
        state.withLock { state in
            guard let userSurvey = state.userSurveys[id],
                let survey = state.surveys[userSurvey.surveyID]
            else { return nil }
            return (userSurvey, survey)
        }
    }

    public func submitSurvey(userID: Int64, id: Int64, answers: JSON, at now: Timestamp) throws -> UserSurvey {
        try state.withLock { state in
            guard var userSurvey = state.userSurveys[id], userSurvey.userID == userID else {
                throw StoreError.notFound("survey")
            }
            guard userSurvey.submittedAt == nil else {
                throw StoreError(.conflict, field: "user_survey_id", "already submitted")
            }
            userSurvey.submittedAt = now
            userSurvey.answers = answers
            state.userSurveys[id] = userSurvey
            return userSurvey
        }
    }
}
