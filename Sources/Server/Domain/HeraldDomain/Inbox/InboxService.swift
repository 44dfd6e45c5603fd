import HeraldModel
import HeraldStore

/// What a user does with their inbox: read marks (with the event the app reports), deletions, the badge.
public struct InboxService: Sendable {
    let store: Store
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// What marking read did.
    package struct ReadMarks: Sendable, Equatable {
        /// The ids that are the user's visible entries, once each, in the order given.
        package var entries: [Int64]
        /// The ids that are the user's rewards, once each, in the order given.
        package var rewards: [Int64]
        /// The user's unread count after: the badge.
        package var badge: Int
    }

    /// A page of a user's visible inbox, newest first: `limit` entries after the first `offset`.
    package func page(userID: Int64, limit: Int, offset: Int) throws -> [InboxEntry] {
        try store.read { try $0.inbox.page(userID: userID, limit: limit, offset: offset) }
    }

    /// Marks a user's entries (in their inbox or only pushed: the `n` of any push they got) and rewards read (a
    /// reward's announcing entry with it), in one transaction, and
    /// records `event` (`opened` when the app was opened through the push: a campaign's message is then counted
    /// as opened directly) for each entry. Other users' ids,
    /// deleted entries and repeats are left out of the answer.
    package func markRead(
        userID: Int64, entries ids: [Int64], rewards rewardIDs: [Int64], event: NotificationEventKind?
    )
        throws -> ReadMarks
    {
        let now = clock.now()
        return try store.transaction { tx in
            var owned = try tx.inbox.owned(userID: userID, among: ids)
            let entries = ids.filter { owned.remove($0) != nil }
            let rewards = try tx.offers.owned(userID: userID, among: rewardIDs)
            try tx.offers.markRead(ids: rewards.map(\.id), at: now)
            _ = try tx.inbox.markRead(userID: userID, ids: entries + rewards.compactMap(\.notificationID), at: now)
            if let event {
                for id in entries { try tx.inbox.recordEvent(notificationID: id, userID: userID, kind: event, at: now) }
            }
            // Read because the app was opened through the push: a direct open of a campaign's message.
            if event == .opened {
                // An entry of the user's (owned above), in their inbox or only pushed.
                for id in entries {
                    if let entry = try tx.inbox.find(id: id) { try tx.countDirectOpen(of: entry, at: now) }
                }
            }
            var ownedRewards = Set(rewards.map(\.id))
            return ReadMarks(
                entries: entries, rewards: rewardIDs.filter { ownedRewards.remove($0) != nil },
                badge: try tx.inbox.unreadCount(userID: userID))
        }
    }

    /// Deletes a user's entry; false when it isn't theirs or is already gone.
    package func delete(userID: Int64, id: Int64) throws -> Bool {
        let now = clock.now()
        return try store.transaction { tx in try tx.inbox.delete(userID: userID, id: id, at: now) }
    }

    /// Records an app-reported event about a user's entry; false when the entry isn't theirs.
    package func recordEvent(userID: Int64, notificationID: Int64, kind: NotificationEventKind) throws -> Bool {
        let now = clock.now()
        return try store.transaction { tx in
            guard try tx.inbox.belongs(id: notificationID, to: userID) else { return false }
            try tx.inbox.recordEvent(notificationID: notificationID, userID: userID, kind: kind, at: now)
            return true
        }
    }
}
