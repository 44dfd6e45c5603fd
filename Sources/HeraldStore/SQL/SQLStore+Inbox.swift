import HeraldModel

extension SQLStore {
    static let notificationColumns = """
        id, business_id, user_id, kind, event, title, subtitle, body, sound, media_url, media_type, extras, push_style, \
        visible, reward_id, created_at, read_at, collapse_id
        """

    /// Decodes the notification columns starting at `offset`.
    static func notification(_ row: SQLRow, from offset: Int = 0) -> InboxEntry {
        let o = offset
        let draft = NotificationDraft(
            businessID: row.int(o + 1), userID: row.int(o + 2), kind: InboxKind(row.text(o + 3)),
            event: row.text(o + 4), title: row.text(o + 5), subtitle: row.optionalText(o + 6), body: row.text(o + 7),
            sound: row.optionalText(o + 8),
            media: row.optionalText(o + 9).map { MediaAttachment(url: $0, type: row.text(o + 10)) },
            extras: parseJSON(row.text(o + 11)), pushStyle: PushStyle(row.text(o + 12)),
            visibleInInbox: row.bool(o + 13), rewardID: row.optionalInt(o + 14), collapseID: row.optionalText(o + 17))
        return InboxEntry(
            id: row.int(o), draft: draft, createdAt: row.timestamp(o + 15), readAt: row.optionalTimestamp(o + 16))
    }

    /// Inserts one entry and its delivery jobs on `db` (inside the caller's transaction).
    func insertNotification(_ draft: NotificationDraft, on db: any SQLConnection, at now: Timestamp) throws
        -> InboxEntry
    {
        let extras = draft.extras.encodedString
        let id = try db.scalar(
            """
            INSERT INTO notifications (business_id, user_id, kind, event, title, subtitle, body, sound, media_url, media_type,
                extras, push_style, visible, reward_id, created_at, collapse_id)
            VALUES (\(draft.businessID), \(draft.userID), \(draft.kind.rawValue), \(draft.event), \(draft.title),
                \(draft.subtitle), \(draft.body), \(draft.sound), \(draft.media?.url), \(draft.media?.type), \(extras),
                \(draft.pushStyle.rawValue), \(draft.visibleInInbox), \(draft.rewardID), \(now), \(draft.collapseID))
            RETURNING id
            """)
        if draft.visibleInInbox { try bumpInboxVersion(draft.userID, on: db) }
        if draft.pushStyle != .none {
            var deviceIDs: [(Int64, String)] = []
            try db.forEachRow(
                "SELECT id, platform FROM devices WHERE user_id = \(draft.userID) AND token IS NOT NULL ORDER BY id"
            ) {
                deviceIDs.append(($0.int(0), $0.text(1)))
            }
            for (deviceID, platform) in deviceIDs {
                try db.execute(
                    """
                    INSERT INTO deliveries (notification_id, business_id, device_id, platform, status, attempts,
                        next_attempt_at, apns_id, created_at, updated_at)
                    VALUES (\(id), \(draft.businessID), \(deviceID), \(platform), 'queued', 0, \(now), \(makeUUID()), \(now), \(now))
                    """)
            }
        }
        return InboxEntry(id: id, draft: draft, createdAt: now)
    }

    func bumpInboxVersion(_ userID: Int64, on db: any SQLConnection) throws {
        try db.execute("UPDATE users SET inbox_version = inbox_version + 1 WHERE id = \(userID)")
    }

    public func createNotifications(_ drafts: [NotificationDraft], at now: Timestamp) throws -> [InboxEntry] {
        try database.write { db in try drafts.map { try insertNotification($0, on: db, at: now) } }
    }

    public func notifications(userID: Int64, limit: Int, offset: Int) throws -> [InboxEntry] {
        try database.read { db in
            try db.rows(
                """
                SELECT \(raw: Self.notificationColumns) FROM notifications
                WHERE user_id = \(userID) AND deleted_at IS NULL AND visible = 1
                ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
                """
            ).map { Self.notification($0) }
        }
    }

    public func notification(userID: Int64, id: Int64) throws -> InboxEntry? {
        try database.read { db in
            try db.row(
                """
                SELECT \(raw: Self.notificationColumns) FROM notifications
                WHERE id = \(id) AND user_id = \(userID) AND deleted_at IS NULL AND visible = 1
                """
            ).map { Self.notification($0) }
        }
    }

    public func notification(businessID: Int64, id: Int64) throws -> InboxEntry? {
        try database.read { db in
            try db.row(
                "SELECT \(raw: Self.notificationColumns) FROM notifications WHERE id = \(id) AND business_id = \(businessID)"
            )
            .map { Self.notification($0) }
        }
    }

    public func deleteNotification(userID: Int64, id: Int64, at now: Timestamp) throws -> Bool {
        try database.write { db in
            let deleted =
                try db.execute(
                    """
                    UPDATE notifications SET deleted_at = \(now)
                    WHERE id = \(id) AND user_id = \(userID) AND deleted_at IS NULL AND visible = 1
                    """) > 0
            if deleted { try bumpInboxVersion(userID, on: db) }
            return deleted
        }
    }

    public func markRead(userID: Int64, ids: [Int64], event: NotificationEventKind?, at now: Timestamp) throws
        -> ReadMarks
    {
        guard !ids.isEmpty else { return ReadMarks(ids: [], changed: 0) }
        return try database.write { db in
            var owned = Set<Int64>()
            try db.forEachRow(
                """
                SELECT id FROM notifications
                WHERE user_id = \(userID) AND id IN (\(list: ids)) AND deleted_at IS NULL AND visible = 1
                """
            ) { owned.insert($0.int(0)) }
            let marked = ids.filter { owned.remove($0) != nil }
            guard !marked.isEmpty else { return ReadMarks(ids: [], changed: 0) }
            let changed = try db.execute(
                "UPDATE notifications SET read_at = \(now) WHERE id IN (\(list: marked)) AND read_at IS NULL")
            if changed > 0 { try bumpInboxVersion(userID, on: db) }
            if let event {
                for id in marked {
                    try db.execute(
                        """
                        INSERT INTO notification_events (notification_id, user_id, kind, created_at)
                        VALUES (\(id), \(userID), \(event.rawValue), \(now))
                        """)
                }
            }
            return ReadMarks(ids: marked, changed: changed)
        }
    }

    public func unreadCount(userID: Int64) throws -> Int {
        try database.read { db in
            Int(
                try db.scalar(
                    """
                    SELECT COUNT(*) FROM notifications
                    WHERE user_id = \(userID) AND read_at IS NULL AND deleted_at IS NULL AND visible = 1
                    """))
        }
    }

    public func recordEvent(userID: Int64, notificationID: Int64, kind: NotificationEventKind, at now: Timestamp) throws
        -> Bool
    {
        try database.write { db in
            guard try db.row("SELECT id FROM notifications WHERE id = \(notificationID) AND user_id = \(userID)") != nil
            else {
                return false
            }
            try db.execute(
                """
                INSERT INTO notification_events (notification_id, user_id, kind, created_at)
                VALUES (\(notificationID), \(userID), \(kind.rawValue), \(now))
                """)
            return true
        }
    }

    public func eventCount(notificationID: Int64, kind: NotificationEventKind) throws -> Int {
        try database.read { db in
            Int(
                try db.scalar(
                    """
                    SELECT COUNT(*) FROM notification_events WHERE notification_id = \(notificationID) AND kind = \(kind.rawValue)
                    """))
        }
    }
}
