import HeraldModel
import HeraldStore

extension LoyaltyService {
    /// Records a check-in, crediting its points if approved and converting them past the business's threshold.
    /// A transaction id seen before (a POS repeating itself) returns the first check-in unchanged (`created`
    /// false); another user's is a conflict on `transaction_id`.
    package func recordCheckin(_ new: NewCheckin, business: Business) throws -> CheckinResult {
        let now = clock.now()
        return try transaction(retryingConflictOn: "transaction_id") { tx in
            var user = try lockUser(tx, businessID: business.id, new.userID)
            let place = try location(tx, businessID: business.id, new.locationID)
            if let transactionID = new.transactionID,
                let existing = try tx.checkins.find(businessID: business.id, transactionID: transactionID)
            {
                try existing.checkRepeated(by: user.id)
                return CheckinResult(
                    checkin: existing, notification: try entry(tx, existing.notificationID), conversions: [],
                    totalPoints: user.points, created: false)
            }
            if let transactionID = new.transactionID {
                try Redemption.checkTransaction(
                    usedBy: tx.checkins.transactionOwners(businessID: business.id, transactionID: transactionID),
                    userID: user.id)
            }
            let transactionID =
                try new.transactionID
                ?? Checkin.generatedTransactionID(userID: user.id, at: now) { candidate in
                    try tx.checkins.find(businessID: business.id, transactionID: candidate) != nil
                }
            var userSurveyID: Int64?
            if let surveyID = new.surveyID {
                guard let survey = try tx.surveys.find(businessID: business.id, id: surveyID) else {
                    throw DomainError.notFound("survey")
                }
                userSurveyID = try tx.surveys.send(survey, to: user.id, locationID: place.id, at: now).id
            }
            let first = try !tx.checkins.hasApproved(userID: user.id)
            var checkin = try tx.checkins.insert(
                Checkin(
                    id: 0, businessID: business.id, userID: user.id, locationID: place.id, points: new.points,
                    source: new.source, transactionID: transactionID, status: new.status, isFirst: first,
                    userSurveyID: userSurveyID, createdAt: now, updatedAt: now),
                at: now)
            let credit = Checkin.balanceChange(points: new.points, from: nil, to: new.status)
            if credit != 0 { user.points = try tx.users.addToBalance(id: user.id, points: credit).points }
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            let notice = LoyaltyNotices.checkin(
                checkin, event: new.event, location: place, totalPoints: user.points, user: user)
            let entry = try notifier.notify(notice)
            if let entry {
                checkin.notificationID = entry.id
                try tx.checkins.setNotification(checkinID: checkin.id, notificationID: entry.id)
            }
            let conversions =
                new.status == .approved ? try convertPoints(&user, business: business, tx, notifier, at: now) : []
            return CheckinResult(
                checkin: checkin, notification: entry, conversions: conversions, totalPoints: user.points,
                created: true)
        }
    }

    /// Moves a check-in from one of `from` to `to` (approving credits its points, voiding takes them back), with
    /// `event`'s entry. Not found for another business's; a conflict on `status` from any other status. The POS
    /// repeating a change whose answer it lost gets the change already made: one change, one notification.
    package func changeCheckin(
        business: Business, id: Int64, from: [Checkin.Status], to: Checkin.Status, event: EventName
    ) throws -> CheckinResult {
        let now = clock.now()
        return try store.transaction { tx in
            guard var checkin = try tx.checkins.find(businessID: business.id, id: id) else {
                throw DomainError.notFound("check-in")
            }
            var user = try lockUser(tx, businessID: business.id, checkin.userID)
            if let repeated = try repeatedChange(checkin, to: to, event: event, user: user, tx) { return repeated }
            guard from.contains(checkin.status) else {
                throw DomainError(.conflict, field: "status", "the check-in is \(checkin.status)")
            }
            let isFirst =
                to == .approved && checkin.status != .approved
                ? try !tx.checkins.hasApproved(userID: user.id) : checkin.isFirst
            // Guarded by the status read above: a change made meanwhile (another node's void) wins, this one
            // is then a repeat or a conflict, never a second debit.
            guard try tx.checkins.changeStatus(id: id, from: [checkin.status], to: to, isFirst: isFirst, at: now)
            else {
                let current = try tx.checkins.find(businessID: business.id, id: id) ?? checkin
                if let repeated = try repeatedChange(current, to: to, event: event, user: user, tx) { return repeated }
                throw DomainError(.conflict, field: "status", "the check-in is \(current.status)")
            }
            let change = Checkin.balanceChange(points: checkin.points, from: checkin.status, to: to)
            if change != 0 { user.points = try tx.users.addToBalance(id: user.id, points: change).points }
            checkin.status = to
            checkin.isFirst = isFirst
            checkin.updatedAt = now
            let place = try tx.locations.find(businessID: business.id, id: checkin.locationID)
            let notifier = notifications.notifier(for: business, in: tx, at: now)
            let entry = try notifier.notify(
                LoyaltyNotices.checkin(checkin, event: event, location: place, totalPoints: user.points, user: user))
            if let entry {
                checkin.notificationID = entry.id
                try tx.checkins.setNotification(checkinID: checkin.id, notificationID: entry.id)
            }
            let conversions =
                to == .approved ? try convertPoints(&user, business: business, tx, notifier, at: now) : []
            return CheckinResult(
                checkin: checkin, notification: entry, conversions: conversions, totalPoints: user.points,
                created: true)
        }
    }

    /// The POS's answer on a pending (or failed) check-in: `succeeded` approves it (crediting its points), else it
    /// fails; only those two may be retried (a conflict on `status` otherwise).
    package func retryCheckin(business: Business, id: Int64, succeeded: Bool) throws -> CheckinResult {
        try changeCheckin(
            business: business, id: id, from: [.pending, .failed], to: succeeded ? .approved : .failed,
            event: succeeded ? .checkinRetrySuccess : .checkinRetryFail)
    }

    /// Cancels an approved (or pending) check-in, taking back the points it credited; no other may be voided (a
    /// conflict on `status`).
    package func voidCheckin(business: Business, id: Int64) throws -> CheckinResult {
        try changeCheckin(business: business, id: id, from: [.approved, .pending], to: .void, event: .checkinVoid)
    }

    /// The change the POS asks for again, if `checkin` already made it: its status is `to` and its latest entry
    /// is `event`'s (a check-in approved when it was made was never retried).
    private func repeatedChange(
        _ checkin: Checkin, to: Checkin.Status, event: EventName, user: User, _ tx: StoreTransaction
    ) throws -> CheckinResult? {
        guard checkin.status == to, let entry = try entry(tx, checkin.notificationID), entry.event == event.rawValue
        else { return nil }
        return CheckinResult(
            checkin: checkin, notification: entry, conversions: [], totalPoints: user.points, created: false)
    }

    /// Applies the business's conversion rule to `user`'s balance (inside the caller's transaction, the user's
    /// row locked): each `threshold` points become the conversion offer or banked currency, with an entry each.
    func convertPoints(
        _ user: inout User, business: Business, _ tx: StoreTransaction, _ notifier: Notifier, at now: Timestamp
    ) throws -> [InboxEntry] {
        // The settings as committed now, not as this request's cached business had them.
        let settings = try tx.businesses.find(id: business.id)?.settings ?? business.settings
        let offer = try settings.conversionOfferID.flatMap { try tx.offers.find(businessID: business.id, id: $0) }
        let conversion = PointsConversion(points: user.points, settings: settings, offer: offer, at: now)
        guard conversion.conversions > 0 else { return [] }
        let currency = settings.conversionKind == "currency"
        var entries: [InboxEntry] = []
        var points = user.points
        for _ in 0..<conversion.conversions {
            points -= settings.conversionThreshold
            if currency {
                let notice = LoyaltyNotices.pointsConverted(
                    points: settings.conversionThreshold, reward: nil, offer: nil,
                    amount: settings.conversionCurrencyAmount, totalPoints: points, user: user)
                if let entry = try notifier.notify(notice) { entries.append(entry) }
            } else if let offer {
                var reward = try tx.offers.grant(
                    offer, to: user.id, source: "points_to_reward", expiresAt: offer.expiry(grantedAt: now), at: now)
                let notice = LoyaltyNotices.pointsConverted(
                    points: settings.conversionThreshold, reward: reward, offer: offer, amount: nil,
                    totalPoints: points, user: user)
                if let entry = try notifier.notify(notice) {
                    reward.notificationID = entry.id
                    try tx.offers.setNotification(rewardID: reward.id, notificationID: entry.id)
                    entries.append(entry)
                }
            }
        }
        let count = Int64(conversion.conversions)
        let after = try tx.users.addToBalance(
            id: user.id, points: -settings.conversionThreshold * count,
            currency: currency ? Money(cents: settings.conversionCurrencyAmount.cents * count) : .zero)
        (user.points, user.bankedCurrency) = (after.points, after.banked)
        return entries
    }
}
