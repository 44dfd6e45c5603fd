/// Herald's schema, as migrations. Append; never edit a released one.
package enum Schema {
    /// Every migration, in order.
    package static let migrations: [Migration] = [
        foundation, inboxVersion, loyalty, collapseID, leaseIndexes, moneyInCents, devicesAndCampaigns, sandboxDevices,
        deviceAPIIndexes, queueIndexes, locationBeacons, idempotencyRequests, providerTokens, queueTables,
        importForeignKeys, fcmQuotas, connectionLeases, sharedPushTokens, campaignAnswers, identityKeys,
        providerTokensByKey, oneTokenHolder, emailCodes, credentialWindows,
    ]

    /// Money as whole cents: a balance read back is the balance written, and amounts add up exactly (a
    /// `DOUBLE PRECISION` 0.1 + 0.2 is not 0.3).
    static let moneyInCents = Migration(version: 6, name: "money_in_cents") { _ in
        [("offers", "discount"), ("redemptions", "discount"), ("gift_cards", "balance"), ("users", "banked_currency")]
            .flatMap { table, column in
                let cents = column == "banked_currency" ? "banked_cents" : column + "_cents"
                return [
                    "ALTER TABLE \(table) ADD COLUMN \(cents) BIGINT NOT NULL DEFAULT 0",
                    "UPDATE \(table) SET \(cents) = CAST(ROUND(\(column) * 100) AS BIGINT)",
                    "ALTER TABLE \(table) DROP COLUMN \(column)",
                ]
            }
    }

    /// Every push claimed and answered added and removed an entry of `deliveries_owner` (measured: a sixth of the
    /// queue's write cost per push). It served only a restart's hand-back of one node's leases, which the leased
    /// index serves as well: the jobs in `sending` are the few in flight or claimed ahead.
    static let leaseIndexes = Migration(version: 5, name: "lease_indexes") { _ in
        ["DROP INDEX deliveries_owner"]
    }

    /// Pushes that replace one another on the device (`apns-collapse-id`, FCM's `collapse_key`).
    static let collapseID = Migration(version: 4, name: "collapse_id") { _ in
        ["ALTER TABLE notifications ADD COLUMN collapse_id TEXT"]
    }

    /// Offers and rewards, check-ins, redemptions, gift cards, surveys.
    static let loyalty = Migration(version: 3, name: "loyalty") { dialect in
        let id = dialect.identityPrimaryKey
        let money = "DOUBLE PRECISION"
        return [
            """
            CREATE TABLE offers (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), name TEXT NOT NULL,
                description TEXT NOT NULL, image_url TEXT, media_url TEXT, media_type TEXT, discount \(money) NOT NULL,
                available_from BIGINT, available_until BIGINT, expires_at BIGINT, valid_for_seconds BIGINT,
                created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE rewards (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), user_id BIGINT NOT NULL REFERENCES users(id),
                offer_id BIGINT NOT NULL REFERENCES offers(id), source TEXT NOT NULL, granted_at BIGINT NOT NULL,
                expires_at BIGINT, read_at BIGINT, redemption_code TEXT, redeemed_at BIGINT, reminder_sent_at BIGINT,
                notification_id BIGINT)
            """,
            "CREATE UNIQUE INDEX rewards_code ON rewards (business_id, redemption_code) WHERE redemption_code IS NOT NULL",
            "CREATE INDEX rewards_user ON rewards (user_id, id)",
            """
            CREATE INDEX rewards_reminders ON rewards (business_id, expires_at)
                WHERE reminder_sent_at IS NULL AND redeemed_at IS NULL AND expires_at IS NOT NULL
            """,
            """
            CREATE TABLE checkins (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), user_id BIGINT NOT NULL REFERENCES users(id),
                location_id BIGINT NOT NULL REFERENCES locations(id), points BIGINT NOT NULL, source TEXT NOT NULL,
                transaction_id TEXT NOT NULL, status TEXT NOT NULL, is_first BIGINT NOT NULL, user_survey_id BIGINT,
                notification_id BIGINT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
                UNIQUE (business_id, transaction_id))
            """,
            "CREATE INDEX checkins_user ON checkins (user_id, status)",
            """
            CREATE TABLE redemptions (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), user_id BIGINT NOT NULL REFERENCES users(id),
                location_id BIGINT NOT NULL REFERENCES locations(id), discount \(money) NOT NULL, reward_id BIGINT,
                transaction_id TEXT, notification_id BIGINT, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX redemptions_transaction ON redemptions (business_id, transaction_id)",
            """
            CREATE TABLE gift_cards (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), uuid TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users(id), balance \(money) NOT NULL, updated_at BIGINT NOT NULL,
                UNIQUE (business_id, uuid))
            """,
            """
            CREATE TABLE surveys (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), title TEXT NOT NULL, definition TEXT NOT NULL,
                url TEXT, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE user_surveys (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), survey_id BIGINT NOT NULL REFERENCES surveys(id),
                user_id BIGINT NOT NULL REFERENCES users(id), location_id BIGINT, created_at BIGINT NOT NULL,
                submitted_at BIGINT, answers TEXT)
            """,
            "CREATE INDEX user_surveys_user ON user_surveys (user_id)",
        ]
    }

    /// A per-user counter bumped with every inbox change, validating cached inbox pages.
    static let inboxVersion = Migration(version: 2, name: "inbox_version") { _ in
        ["ALTER TABLE users ADD COLUMN inbox_version BIGINT NOT NULL DEFAULT 0"]
    }

    /// Businesses, users, devices, sessions, inbox and the delivery queue.
    static let foundation = Migration(version: 1, name: "foundation") { dialect in
        let id = dialect.identityPrimaryKey
        let blob = dialect.blobType
        return [
            """
            CREATE TABLE businesses (
                id \(id), name TEXT NOT NULL, client_id TEXT NOT NULL UNIQUE, sealed_secret \(blob) NOT NULL,
                pos_key_hash TEXT NOT NULL UNIQUE, settings TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE credentials (
                business_id BIGINT NOT NULL REFERENCES businesses(id), platform TEXT NOT NULL, settings TEXT NOT NULL,
                sealed_key \(blob) NOT NULL, broken_reason TEXT, updated_at BIGINT NOT NULL,
                PRIMARY KEY (business_id, platform))
            """,
            """
            CREATE TABLE templates (
                business_id BIGINT NOT NULL REFERENCES businesses(id), event TEXT NOT NULL, title TEXT NOT NULL,
                subtitle TEXT NOT NULL, body TEXT NOT NULL, sound TEXT NOT NULL, enabled BIGINT NOT NULL,
                media_url TEXT, media_type TEXT, updated_at BIGINT NOT NULL, PRIMARY KEY (business_id, event))
            """,
            """
            CREATE TABLE locations (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), name TEXT NOT NULL, store_number TEXT,
                created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE users (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id), email TEXT NOT NULL,
                password_hash TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, phone TEXT,
                points BIGINT NOT NULL DEFAULT 0, banked_currency DOUBLE PRECISION NOT NULL DEFAULT 0,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (business_id, email))
            """,
            "CREATE UNIQUE INDEX users_phone ON users (business_id, phone) WHERE phone IS NOT NULL",
            """
            CREATE TABLE devices (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id),
                user_id BIGINT NOT NULL REFERENCES users(id), device_key TEXT NOT NULL, platform TEXT NOT NULL,
                token TEXT, token_updated_at BIGINT, user_agent TEXT, created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL, UNIQUE (business_id, device_key))
            """,
            "CREATE UNIQUE INDEX devices_token ON devices (business_id, platform, token) WHERE token IS NOT NULL",
            "CREATE INDEX devices_user ON devices (user_id)",
            """
            CREATE TABLE sessions (
                id \(id), token_hash TEXT NOT NULL UNIQUE, business_id BIGINT NOT NULL REFERENCES businesses(id),
                user_id BIGINT NOT NULL REFERENCES users(id), device_id BIGINT REFERENCES devices(id),
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT)
            """,
            """
            CREATE TABLE notifications (
                id \(id), business_id BIGINT NOT NULL REFERENCES businesses(id),
                user_id BIGINT NOT NULL REFERENCES users(id), kind TEXT NOT NULL, event TEXT NOT NULL,
                title TEXT NOT NULL, subtitle TEXT, body TEXT NOT NULL, sound TEXT, media_url TEXT, media_type TEXT,
                extras TEXT NOT NULL, push_style TEXT NOT NULL, visible BIGINT NOT NULL, reward_id BIGINT,
                created_at BIGINT NOT NULL, read_at BIGINT, deleted_at BIGINT)
            """,
            "CREATE INDEX notifications_inbox ON notifications (user_id, id) WHERE deleted_at IS NULL AND visible = 1",
            """
            CREATE INDEX notifications_unread ON notifications (user_id)
                WHERE read_at IS NULL AND deleted_at IS NULL AND visible = 1
            """,
            """
            CREATE TABLE notification_events (
                id \(id), notification_id BIGINT NOT NULL REFERENCES notifications(id), user_id BIGINT NOT NULL,
                kind TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX notification_events_notification ON notification_events (notification_id, kind)",
            """
            CREATE TABLE deliveries (
                id \(id), notification_id BIGINT NOT NULL REFERENCES notifications(id),
                business_id BIGINT NOT NULL, device_id BIGINT NOT NULL REFERENCES devices(id), platform TEXT NOT NULL,
                status TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_at BIGINT NOT NULL, lease_owner TEXT,
                lease_until BIGINT, last_reason TEXT, provider_message_id TEXT, apns_id TEXT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'queued'",
            "CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE status = 'sending'",
            "CREATE INDEX deliveries_owner ON deliveries (lease_owner) WHERE status = 'sending'",
            "CREATE INDEX deliveries_notification ON deliveries (notification_id)",
            "CREATE INDEX deliveries_business ON deliveries (business_id, platform) WHERE status = 'queued'",
        ]
    }
}
