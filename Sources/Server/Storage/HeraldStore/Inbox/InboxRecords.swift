import HeraldModel

/// Inbox entries and the events apps report about them. Every change to what a user's inbox shows bumps the
/// user's `inbox_version`.
package struct InboxRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, user_id, kind, event, title, subtitle, body, sound, media_url, media_type, extras, push_style, \
        visible, reward_id, created_at, read_at, collapse_id, campaign_id, trigger_key, device_id, message, pullable, \
        pulled_at
        """

    /// Decodes the entry columns starting at `o`.
    static func decode(_ row: SQLRow, from o: Int = 0) -> InboxEntry {
        let draft = NotificationDraft(
            businessID: row.int(o + 1), userID: row.int(o + 2), kind: InboxKind(row.text(o + 3)),
            event: row.text(o + 4), title: row.text(o + 5), subtitle: row.optionalText(o + 6), body: row.text(o + 7),
            sound: row.optionalText(o + 8),
            media: row.optionalText(o + 9).map { MediaAttachment(url: $0, type: row.text(o + 10)) },
            extras: Columns.json(row.text(o + 11)), pushStyle: PushStyle(row.text(o + 12)),
            visibleInInbox: row.bool(o + 13), rewardID: row.optionalInt(o + 14), collapseID: row.optionalText(o + 17),
            campaignID: row.optionalInt(o + 18), triggerKey: row.optionalText(o + 19),
            deviceID: row.optionalInt(o + 20),
            message: row.optionalText(o + 21).map(Columns.json), pullable: row.bool(o + 22))
        return InboxEntry(
            id: row.int(o), draft: draft, createdAt: row.timestamp(o + 15), readAt: row.optionalTimestamp(o + 16),
            pulledAt: row.optionalTimestamp(o + 23))
    }

    /// Writes entries (no delivery jobs: see `DeliveryRecords.enqueue`) many a statement, in the order given. Each entry of a batch has a
    /// recipient of its own — a device, or a user's inbox — by which its id is read back (not by the order
    /// `RETURNING` happens to give).
    ///
    /// Only `NotificationService` writes entries (it queues their pushes alongside): the method is behind
    /// `@_spi(NotificationWriter)`, which only its file and the store's tests import (scripts/check-seams).
    @_spi(NotificationWriter)
    public func insert(_ entries: [(draft: NotificationDraft, createdAt: Timestamp)]) throws -> [InboxEntry] {
        struct Recipient: Hashable {
            let deviceID: Int64?
            let userID: Int64?
        }
        let recipients = entries.map { Recipient(deviceID: $0.draft.deviceID, userID: $0.draft.userID) }
        guard Set(recipients).count == entries.count else {
            throw StoreError(.database, "entries written together must each have a recipient of their own")
        }
        var ids: [Recipient: Int64] = [:]
        try tx.connection.insertRows(
            into: "notifications", columns: Self.writtenColumns,
            entries.map { Self.values($0.draft, createdAt: $0.createdAt) }, returning: "id, device_id, user_id",
            arrays: true
        ) { ids[Recipient(deviceID: $0.optionalInt(1), userID: $0.optionalInt(2))] = $0.int(0) }
        var bumped = Set<Int64>()
        return try zip(entries, recipients).map { entry, recipient in
            guard let id = ids.removeValue(forKey: recipient) else {
                throw StoreError(.database, "an inserted inbox entry came back without its id")
            }
            if entry.draft.visibleInInbox, let userID = entry.draft.userID, bumped.insert(userID).inserted {
                try tx.users.bumpInboxVersion(id: userID)
            }
            return InboxEntry(id: id, draft: entry.draft, createdAt: entry.createdAt)
        }
    }

    /// The columns an entry is written with, and (`values`) what it writes in them.
    private static let writtenColumns = [
        "business_id", "user_id", "kind", "event", "title", "subtitle", "body", "sound", "media_url", "media_type",
        "extras", "push_style", "visible", "reward_id", "created_at", "collapse_id", "campaign_id", "trigger_key",
        "device_id", "message", "pullable",
    ]

    private static func values(_ draft: NotificationDraft, createdAt: Timestamp) -> [SQLValue] {
        [
            draft.businessID.sqlValue, draft.userID.sqlValue, draft.kind.rawValue.sqlValue, draft.event.sqlValue,
            draft.title.sqlValue, draft.subtitle.sqlValue, draft.body.sqlValue, draft.sound.sqlValue,
            draft.media?.url.sqlValue ?? .null, draft.media?.type.sqlValue ?? .null,
            draft.extras.encodedString.sqlValue, draft.pushStyle.rawValue.sqlValue, draft.visibleInInbox.sqlValue,
            draft.rewardID.sqlValue, createdAt.sqlValue, draft.collapseID.sqlValue, draft.campaignID.sqlValue,
            draft.triggerKey.sqlValue, draft.deviceID.sqlValue, draft.message?.encodedString.sqlValue ?? .null,
            draft.pullable.sqlValue,
        ]
    }

    /// A user's visible entries, newest first, at most `limit`, skipping `offset`.
    package func page(userID: Int64, limit: Int, offset: Int) throws -> [InboxEntry] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM notifications
            WHERE user_id = \(userID) AND deleted_at IS NULL AND visible = 1
            ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
            """
        ).map { Self.decode($0) }
    }

    /// A user's visible entry `id` (nil for another user's or a deleted one).
    package func find(userID: Int64, id: Int64) throws -> InboxEntry? {
        try tx.connection.row(
            """
            SELECT \(raw: Self.columns) FROM notifications
            WHERE id = \(id) AND user_id = \(userID) AND deleted_at IS NULL AND visible = 1
            """
        ).map { Self.decode($0) }
    }

    /// The entry `id` of a business (nil for another business's), deleted or not.
    package func find(businessID: Int64, id: Int64) throws -> InboxEntry? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM notifications WHERE id = \(id) AND business_id = \(businessID)"
        ).map { Self.decode($0) }
    }

    /// The entry `id`, whoever's it is.
    package func find(id: Int64) throws -> InboxEntry? {
        try tx.connection.row("SELECT \(raw: Self.columns) FROM notifications WHERE id = \(id)").map {
            Self.decode($0)
        }
    }

    /// Deletes a user's visible entry; false when it isn't theirs or is already gone.
    package func delete(userID: Int64, id: Int64, at now: Timestamp) throws -> Bool {
        let deleted =
            try tx.connection.execute(
                """
                UPDATE notifications SET deleted_at = \(now)
                WHERE id = \(id) AND user_id = \(userID) AND deleted_at IS NULL AND visible = 1
                """) > 0
        if deleted { try tx.users.bumpInboxVersion(id: userID) }
        return deleted
    }

    /// Which of `ids` are the user's entries, not deleted: in their inbox, or only pushed (a push-only campaign's,
    /// whose `n` the app marks read all the same).
    package func owned(userID: Int64, among ids: [Int64]) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        var owned = Set<Int64>()
        try tx.connection.forEachRow(
            """
            SELECT id FROM notifications
            WHERE user_id = \(userID) AND id \(in: ids, tx.dialect) AND deleted_at IS NULL
            """
        ) { owned.insert($0.int(0)) }
        return owned
    }

    /// Marks a user's entries read (those unread and not deleted); returns how many changed.
    package func markRead(userID: Int64, ids: [Int64], at now: Timestamp) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let changed = try tx.connection.execute(
            """
            UPDATE notifications SET read_at = \(now)
            WHERE user_id = \(userID) AND id \(in: ids, tx.dialect) AND read_at IS NULL AND deleted_at IS NULL
            """)
        if changed > 0 { try tx.users.bumpInboxVersion(id: userID) }
        return changed
    }

    /// The user's unread visible entries: the badge.
    package func unreadCount(userID: Int64) throws -> Int {
        Int(
            try tx.connection.scalar(
                """
                SELECT COUNT(*) FROM notifications
                WHERE user_id = \(userID) AND read_at IS NULL AND deleted_at IS NULL AND visible = 1
                """))
    }

    /// Whether entry `id` is the user's (visible, deleted or silent).
    package func belongs(id: Int64, to userID: Int64) throws -> Bool {
        try tx.connection.row("SELECT id FROM notifications WHERE id = \(id) AND user_id = \(userID)") != nil
    }

    /// Records an app-reported event about an entry.
    package func recordEvent(notificationID: Int64, userID: Int64, kind: NotificationEventKind, at now: Timestamp)
        throws
    {
        try tx.connection.execute(
            """
            INSERT INTO notification_events (notification_id, user_id, kind, created_at)
            VALUES (\(notificationID), \(userID), \(kind.rawValue), \(now))
            """)
    }

    /// How many events of `kind` an entry has.
    package func eventCount(notificationID: Int64, kind: NotificationEventKind) throws -> Int {
        Int(
            try tx.connection.scalar(
                """
                SELECT COUNT(*) FROM notification_events WHERE notification_id = \(notificationID) AND kind = \(kind.rawValue)
                """))
    }
}

extension InboxRecords {
    /// Hands a device up to `limit` of the messages waiting for its pull, oldest first, marking them handed: each
    /// message goes to one pull, however many run at once (the update re-checks each row it takes). A message made
    /// to go out later (its `created_at` is when: a local time, the end of quiet hours) waits until then.
    package func pull(deviceID: Int64, limit: Int, at now: Timestamp) throws -> [InboxEntry] {
        try tx.connection.rows(
            """
            UPDATE notifications SET pulled_at = \(now)
            WHERE id IN (SELECT id FROM notifications WHERE device_id = \(deviceID) AND pullable = 1 AND pulled_at IS NULL
                           AND created_at <= \(now)
                         ORDER BY id LIMIT \(max(0, limit)) \(raw: tx.dialect.skipLocked))
              AND pulled_at IS NULL
            RETURNING \(raw: Self.columns)
            """
        ).map { Self.decode($0) }.sorted { $0.id < $1.id }
    }

    /// The campaign message `id` addressed to `deviceID` (nil for any other).
    package func message(deviceID: Int64, id: Int64) throws -> InboxEntry? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM notifications WHERE id = \(id) AND device_id = \(deviceID)"
        ).map { Self.decode($0) }
    }

    /// Records that `notificationID` reached milestone `type` (received, displayed, opened, …), once: false when
    /// it had already.
    package func reachMilestone(notificationID: Int64, type: String, at now: Timestamp) throws -> Bool {
        try tx.connection.execute(
            """
            INSERT INTO notification_milestones (notification_id, type, at) VALUES (\(notificationID), \(type), \(now))
            ON CONFLICT (notification_id, type) DO NOTHING
            """) == 1
    }

    /// Whether `notificationID` reached milestone `type`.
    package func hasMilestone(notificationID: Int64, type: String) throws -> Bool {
        try tx.connection.row(
            "SELECT at FROM notification_milestones WHERE notification_id = \(notificationID) AND type = \(type)")
            != nil
    }

    /// The campaign messages delivered to `deviceID` (their push accepted) from `since` on, newest first: what an
    /// app opening then may have been influenced by.
    package func deliveredCampaignMessages(deviceID: Int64, since: Timestamp, until: Timestamp) throws -> [InboxEntry] {
        try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM notifications
            WHERE device_id = \(deviceID) AND campaign_id IS NOT NULL
              AND id IN (SELECT notification_id FROM deliveries WHERE device_id = \(deviceID) AND status = 'delivered'
                         AND updated_at >= \(since) AND updated_at <= \(until))
            ORDER BY id DESC LIMIT 20
            """
        ).map { Self.decode($0) }
    }
}
