import HeraldModel
import HeraldStore

/// The loyalty programme's rules: check-ins and the points they credit, conversions, offers and rewards,
/// redemptions, gift cards, surveys. Each operation is one transaction: its records, its inbox entries and their
/// delivery jobs commit together or not at all.
///
/// Concurrency: a user's balance is changed by adding in the database (never written back from a stale read),
/// state changes are guarded (`UPDATE … WHERE status IN …`, checked), and uniqueness is the database's: two
/// POS calls racing with one transaction id make one check-in, two honours of one code one redemption.
public struct LoyaltyService: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, notifications: NotificationService, clock: WallClock) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
    }

    /// Runs `body` in a transaction, once more if it lost a race on a unique `field` (two POS calls with one
    /// transaction id): the second run finds what the winner wrote.
    func transaction<T>(retryingConflictOn field: String, _ body: (StoreTransaction) throws -> T) throws -> T {
        do {
            return try store.transaction(body)
        } catch let error as StoreError where error.code == .conflict && error.field == field {
            return try store.transaction(body)
        }
    }

    func lockUser(_ tx: StoreTransaction, businessID: Int64, _ id: Int64) throws -> User {
        guard let user = try tx.users.lock(businessID: businessID, id: id) else { throw DomainError.notFound("user") }
        return user
    }

    func location(_ tx: StoreTransaction, businessID: Int64, _ id: Int64) throws -> Location {
        guard let location = try tx.locations.find(businessID: businessID, id: id) else {
            throw DomainError.notFound("location")
        }
        return location
    }

    /// The inbox entry `id` (a check-in's or redemption's), if any.
    func entry(_ tx: StoreTransaction, _ id: Int64?) throws -> InboxEntry? {
        try id.flatMap { try tx.inbox.find(id: $0) }
    }

    // MARK: - Offers

    /// Grants `offerID` to each user (all of them the business's: see `knownUsers`), each with a reward, an entry
    /// and its push. An offer outside its window (or expired) is refused: its rewards would be dead on arrival.
    package func grantOffer(
        business: Business, offerID: Int64, userIDs: [Int64], source: String, event: EventName
    ) throws -> [(reward: Reward, notification: InboxEntry?)] {
        let now = clock.now()
        return try store.transaction { tx in
            guard let offer = try tx.offers.find(businessID: business.id, id: offerID) else {
                throw DomainError.notFound("offer")
            }
            guard offer.isAvailable(at: now) else {
                throw DomainError(
                    .invalid, field: "offer_id", "the offer is not available now (outside its window or expired)")
            }
            let users = try tx.knownUsers(businessID: business.id, ids: userIDs)
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            var granted: [(reward: Reward, notification: InboxEntry?)] = []
            for user in users {
                granted.append(try grant(offer, to: user, source: source, event: event, tx, notifier, at: now))
            }
            return granted
        }
    }

    /// Grants one reward with its notice (inside the caller's transaction).
    func grant(
        _ offer: Offer, to user: User, source: String, event: EventName, _ tx: StoreTransaction, _ notifier: Notifier,
        at now: Timestamp
    ) throws -> (reward: Reward, notification: InboxEntry?) {
        var reward = try tx.offers.grant(
            offer, to: user.id, source: source, expiresAt: offer.expiry(grantedAt: now), at: now)
        let entry = try notifier.notify(LoyaltyNotices.rewardGranted(reward, offer, event: event, user: user))
        if let entry {
            reward.notificationID = entry.id
            try tx.offers.setNotification(rewardID: reward.id, notificationID: entry.id)
        }
        return (reward, entry)
    }

    /// Gives a user's live reward a redemption code for the POS (keeping the one it has). Not found for someone
    /// else's; refused on `reward_id` when its offer is not available now, or it is redeemed or expired.
    package func issueRedemptionCode(userID: Int64, rewardID: Int64) throws -> (reward: Reward, offer: Offer) {
        let now = clock.now()
        for _ in 0..<5 {
            let code = RedemptionCode.random()
            do {
                return try store.transaction { tx in
                    guard let found = try tx.offers.reward(userID: userID, id: rewardID) else {
                        throw DomainError.notFound("reward")
                    }
                    var reward = found.reward
                    guard found.offer.isAvailable(at: now) else {
                        throw DomainError(.invalid, field: "reward_id", "the offer is not available now")
                    }
                    guard reward.redeemedAt == nil else {
                        throw DomainError(.conflict, field: "reward_id", "already redeemed")
                    }
                    guard reward.isLive(at: now) else { throw DomainError(.conflict, field: "reward_id", "expired") }
                    if reward.redemptionCode == nil {
                        if try tx.offers.setCode(rewardID: reward.id, code: code) {
                            reward.redemptionCode = code
                        } else if let raced = try tx.offers.reward(userID: userID, id: rewardID) {
                            reward = raced.reward
                        }
                    }
                    return (reward, found.offer)
                }
            } catch let error as StoreError where error.code == .conflict && error.field == "redemption_code" {
                continue  // another reward holds this code: draw again
            }
        }
        throw DomainError(.conflict, field: "reward_id", "no free redemption code found; try again")
    }

    /// Sends the expiry reminder of up to `limit` live rewards of `business` expiring before `before`, each at
    /// most once however many nodes or restarts try (marked in the transaction that writes its entry).
    package func sendExpiryReminders(business: Business, expiringBefore before: Timestamp, limit: Int) throws
        -> [InboxEntry]
    {
        let now = clock.now()
        return try store.transaction { tx in
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            var entries: [InboxEntry] = []
            for (reward, offer) in try tx.offers.awaitingReminder(
                businessID: business.id, expiringBefore: before, limit: limit, at: now)
            {
                guard try tx.offers.markReminderSent(rewardID: reward.id, at: now),
                    let user = try tx.users.find(businessID: business.id, id: reward.userID)
                else { continue }
                if let entry = try notifier.notify(LoyaltyNotices.offerExpiring(reward, offer, user: user)) {
                    entries.append(entry)
                }
            }
            return entries
        }
    }

    // MARK: - Gift cards

    /// Stores a gift card's reported balance (the card is made on its first report) and pushes the silent `gc`
    /// update. A card reported for another user than before is a conflict on `user_id`.
    package func updateGiftCard(business: Business, uuid: String, userID: Int64, balance: Money) throws -> (
        giftCard: GiftCard, notification: InboxEntry?
    ) {
        let now = clock.now()
        return try store.transaction { tx in
            let user = try lockUser(tx, businessID: business.id, userID)
            guard
                let card = try tx.giftCards.saveBalance(
                    businessID: business.id, uuid: uuid, userID: user.id, balance: balance, at: now)
            else { throw DomainError(.conflict, field: "user_id", "the card belongs to another user") }
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            return (card, try notifier.notify(LoyaltyNotices.giftCard(card, user: user)))
        }
    }
}
