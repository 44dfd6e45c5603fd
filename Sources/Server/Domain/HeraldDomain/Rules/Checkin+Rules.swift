import HeraldModel
import HeraldStore

extension Checkin {
    /// The transaction id of a check-in the POS sent without one: the seed's `POS_<user>_<unix time>`, then
    /// `_2`, `_3`, … while `isTaken` says the business already has it (two check-ins within a second).
    static func generatedTransactionID(
        userID: Int64, at now: Timestamp, isTaken: (String) throws -> Bool
    ) rethrows -> String {
        let base = "POS_\(userID)_\(now.seconds)"
        var candidate = base
        var suffix = 2
        while try isTaken(candidate) {
            candidate = "\(base)_\(suffix)"
            suffix += 1
        }
        return candidate
    }

    /// The event a new check-in announces itself with: pending (points on confirmation), from a POS scanner, or
    /// an ordinary one.
    package static func event(status: Status, source: String) -> EventName {
        status == .pending ? .pendingCheckin : source == "pos_scanner" ? .posScannerCheckin : .checkin
    }

    /// A POS sent this check-in's transaction id again for `userID`: a retry when it is the same user (one
    /// check-in, one notification); a conflict on `transaction_id` when it is another, who must not be answered
    /// with this user's check-in.
    func checkRepeated(by userID: Int64) throws {
        guard self.userID == userID else {
            throw DomainError(.conflict, field: "transaction_id", "is another user's check-in")
        }
    }

    /// How a user's balance moves when a check-in of `points` goes from `old` (nil: a new check-in) to `new`:
    /// approval credits the points, voiding an approved check-in takes them back, any other move leaves it.
    static func balanceChange(points: Int64, from old: Status?, to new: Status) -> Int64 {
        if new == .approved && old != .approved { return points }
        if new == .void && old == .approved { return -points }
        return 0
    }
}

extension Redemption {
    /// A POS transaction is one guest's ticket: a transaction id that `owners` (the users of the check-ins and
    /// redemptions already recorded with it) shows to be another user's is a conflict, never a second guest's
    /// redemption or check-in.
    static func checkTransaction(usedBy owners: [Int64], userID: Int64) throws {
        guard owners.allSatisfy({ $0 == userID }) else {
            throw DomainError(.conflict, field: "transaction_id", "is another user's transaction")
        }
    }

    /// Whether this recorded redemption is the one a POS asks for again when it repeats `transactionID` for the
    /// same user and reward (or, without a reward, the same discount): a retried request is one redemption and
    /// one notification. Several different redemptions may share a transaction (a ticket with two offers).
    func isRepeated(transactionID: String?, userID: Int64, rewardID: Int64?, discount: Money) -> Bool {
        guard let transactionID, self.transactionID == transactionID, self.userID == userID else { return false }
        if let rewardID { return self.rewardID == rewardID }
        return self.rewardID == nil && self.discount == discount
    }
}
