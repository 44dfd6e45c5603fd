extension Schema {
    /// Installs of the SDK (README: "The device API") become devices — the same record a Punchh app's device id
    /// names, so one phone is one device whichever API it came through — with their own signing credential,
    /// workspace (live or sandbox), app and OS details, segments and last sight. Users may be imported with an
    /// external id and attributes and no email; a device may have no user yet. Messages a campaign sends to one device are inbox
    /// rows addressed to it (`device_id`), pushed or handed out by pull once. Campaigns, audiences, geofences,
    /// lifecycle events and their counters get their tables.
    ///
    /// SQLite cannot drop a NOT NULL: `users`, `devices` and `notifications` are rebuilt (see `rebuild`);
    /// PostgreSQL alters the columns.
    static let devicesAndCampaigns = Migration(version: 7, name: "devices_and_campaigns") { dialect in
        let id = dialect.identityPrimaryKey
        let blob = dialect.blobType
        let sqlite = dialect.name == "sqlite"
        var statements: [String] = []
        if sqlite {
            statements += rebuild(
                "users",
                """
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), email TEXT,
                password_hash TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, phone TEXT,
                points BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                inbox_version BIGINT NOT NULL DEFAULT 0, banked_cents BIGINT NOT NULL DEFAULT 0,
                external_id TEXT, attributes TEXT NOT NULL DEFAULT '{}', UNIQUE (business_id, email)
                """,
                copying: """
                    id, business_id, email, password_hash, first_name, last_name, phone, points, created_at, \
                    updated_at, inbox_version, banked_cents
                    """)
            statements += rebuild(
                "devices",
                """
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), user_id BIGINT REFERENCES users(id),
                device_key TEXT NOT NULL, platform TEXT NOT NULL, token TEXT, token_updated_at BIGINT,
                user_agent TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, \(installColumns(blob)),
                UNIQUE (business_id, device_key)
                """,
                copying: """
                    id, business_id, user_id, device_key, platform, token, token_updated_at, user_agent, created_at, \
                    updated_at
                    """)
            statements += rebuild(
                "notifications",
                """
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), user_id BIGINT REFERENCES users(id),
                kind TEXT NOT NULL, event TEXT NOT NULL, title TEXT NOT NULL, subtitle TEXT, body TEXT NOT NULL,
                sound TEXT, media_url TEXT, media_type TEXT, extras TEXT NOT NULL, push_style TEXT NOT NULL,
                visible BIGINT NOT NULL, reward_id BIGINT, created_at BIGINT NOT NULL, read_at BIGINT,
                deleted_at BIGINT, collapse_id TEXT, \(messageColumns)
                """,
                copying: """
                    id, business_id, user_id, kind, event, title, subtitle, body, sound, media_url, media_type, extras, \
                    push_style, visible, reward_id, created_at, read_at, deleted_at, collapse_id
                    """)
        } else {
            statements += [
                "ALTER TABLE users ALTER COLUMN email DROP NOT NULL",
                "ALTER TABLE users ADD COLUMN external_id TEXT",
                "ALTER TABLE users ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}'",
                "ALTER TABLE devices ALTER COLUMN user_id DROP NOT NULL",
                "ALTER TABLE notifications ALTER COLUMN user_id DROP NOT NULL",
            ]
            statements += installColumns(blob).split(separator: ",").map { "ALTER TABLE devices ADD COLUMN \($0)" }
            statements += messageColumns.split(separator: ",").map { "ALTER TABLE notifications ADD COLUMN \($0)" }
        }
        statements += [
            // Indexes the rebuilt tables had (PostgreSQL kept them: IF NOT EXISTS).
            "CREATE UNIQUE INDEX IF NOT EXISTS users_phone ON users (business_id, phone) WHERE phone IS NOT NULL",
            """
            CREATE UNIQUE INDEX IF NOT EXISTS devices_token ON devices (business_id, platform, token)
                WHERE token IS NOT NULL
            """,
            "CREATE INDEX IF NOT EXISTS devices_user ON devices (user_id)",
            """
            CREATE INDEX IF NOT EXISTS notifications_inbox ON notifications (user_id, id)
                WHERE deleted_at IS NULL AND visible = 1
            """,
            """
            CREATE INDEX IF NOT EXISTS notifications_unread ON notifications (user_id)
                WHERE read_at IS NULL AND deleted_at IS NULL AND visible = 1
            """,
            // New.
            "CREATE UNIQUE INDEX users_external ON users (business_id, external_id) WHERE external_id IS NOT NULL",
            "CREATE UNIQUE INDEX devices_key_id ON devices (key_id) WHERE key_id IS NOT NULL",
            """
            CREATE UNIQUE INDEX devices_approval_code ON devices (business_id, approval_code)
                WHERE approval_code IS NOT NULL
            """,
            "CREATE INDEX devices_business ON devices (business_id, id)",
            """
            CREATE INDEX notifications_pull ON notifications (device_id, id)
                WHERE pullable = 1 AND pulled_at IS NULL
            """,
            "CREATE INDEX notifications_device ON notifications (device_id) WHERE device_id IS NOT NULL",
            """
            CREATE UNIQUE INDEX notifications_campaign_target ON notifications (campaign_id, device_id, trigger_key)
                WHERE campaign_id IS NOT NULL AND device_id IS NOT NULL
            """,
            """
            CREATE UNIQUE INDEX notifications_campaign_inbox ON notifications (campaign_id, user_id, trigger_key)
                WHERE campaign_id IS NOT NULL AND device_id IS NULL
            """,
            "ALTER TABLE businesses ADD COLUMN api_key_hash TEXT",
            "ALTER TABLE businesses ADD COLUMN sandbox_api_key_hash TEXT",
            "CREATE UNIQUE INDEX businesses_api_key ON businesses (api_key_hash) WHERE api_key_hash IS NOT NULL",
            """
            CREATE UNIQUE INDEX businesses_sandbox_api_key ON businesses (sandbox_api_key_hash)
                WHERE sandbox_api_key_hash IS NOT NULL
            """,
            """
            CREATE TABLE device_segments (
                device_id BIGINT NOT NULL REFERENCES devices(id), segment TEXT NOT NULL,
                PRIMARY KEY (device_id, segment))
            """,
            "CREATE INDEX device_segments_segment ON device_segments (segment, device_id)",
            """
            CREATE TABLE segments (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), name TEXT NOT NULL,
                filter TEXT NOT NULL, created_at BIGINT NOT NULL, UNIQUE (business_id, name))
            """,
            """
            CREATE TABLE geofences (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), name TEXT NOT NULL,
                shape TEXT NOT NULL, center_latitude DOUBLE PRECISION NOT NULL,
                center_longitude DOUBLE PRECISION NOT NULL, radius_meters DOUBLE PRECISION NOT NULL,
                polygon TEXT, location_id BIGINT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX geofences_business ON geofences (business_id, center_latitude)",
            """
            CREATE TABLE campaigns (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), name TEXT NOT NULL,
                message TEXT NOT NULL, audience TEXT NOT NULL, channels TEXT NOT NULL, trigger TEXT NOT NULL,
                limits TEXT NOT NULL, sandbox BIGINT NOT NULL, status TEXT NOT NULL,
                fanout_cursor BIGINT NOT NULL DEFAULT 0, start_at BIGINT, launched_at BIGINT, finished_at BIGINT,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX campaigns_status ON campaigns (status, start_at)",
            "CREATE INDEX campaigns_business ON campaigns (business_id, id)",
            """
            CREATE TABLE campaign_stats (
                campaign_id BIGINT NOT NULL REFERENCES campaigns(id), metric TEXT NOT NULL,
                count BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (campaign_id, metric))
            """,
            """
            CREATE TABLE device_events (
                device_id BIGINT NOT NULL REFERENCES devices(id), event_id TEXT NOT NULL,
                business_id BIGINT NOT NULL, type TEXT NOT NULL, notification_id BIGINT,
                occurred_at BIGINT NOT NULL, data TEXT, received_at BIGINT NOT NULL,
                PRIMARY KEY (device_id, event_id))
            """,
            """
            CREATE TABLE notification_milestones (
                notification_id BIGINT NOT NULL REFERENCES notifications(id), type TEXT NOT NULL,
                at BIGINT NOT NULL, PRIMARY KEY (notification_id, type))
            """,
            """
            CREATE TABLE idempotency_keys (
                device_id BIGINT NOT NULL REFERENCES devices(id), key TEXT NOT NULL, answer TEXT NOT NULL,
                created_at BIGINT NOT NULL, PRIMARY KEY (device_id, key))
            """,
        ]
        return statements
    }

    /// What an install adds to a device.
    private static func installColumns(_ blob: String) -> String {
        """
        workspace TEXT, key_id TEXT, sealed_secret \(blob), apns_environment TEXT, app_version TEXT, os_version TEXT, \
        device_model TEXT, locale TEXT, timezone TEXT, sdk_version TEXT, notifications_enabled BIGINT, \
        location_permission TEXT, test_status TEXT, approval_code TEXT, last_seen_at BIGINT
        """
    }

    /// What a campaign's message to one device adds to an inbox row.
    private static let messageColumns = """
        device_id BIGINT REFERENCES devices(id), campaign_id BIGINT, message TEXT, \
        pullable BIGINT NOT NULL DEFAULT 0, pulled_at BIGINT, trigger_key TEXT
        """

    /// SQLite's way to change a column's constraints (its ALTER TABLE documentation): a new table made with
    /// `definition`, the rows copied (the `copying` columns), the old one dropped and the new one renamed into its
    /// place, foreign keys checked once at the end (`SQLDatabase.migrate`). Its indexes went with the old table:
    /// recreate them.
    private static func rebuild(_ table: String, _ definition: String, copying columns: String) -> [String] {
        [
            "CREATE TABLE \(table)_rebuilt (\(definition))",
            "INSERT INTO \(table)_rebuilt (\(columns)) SELECT \(columns) FROM \(table)",
            "DROP TABLE \(table)",
            "ALTER TABLE \(table)_rebuilt RENAME TO \(table)",
        ]
    }
}
