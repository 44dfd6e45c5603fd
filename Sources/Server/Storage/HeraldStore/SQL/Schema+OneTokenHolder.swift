extension Schema {
    /// One push token, one device (issue 40, finding 6): the latest signed-in registration that presents a token
    /// owns it, and an install of nobody never takes one from a user's device (`StoreTransaction.claimPushToken` in
    /// the domain). The devices that share a token since `sharedPushTokens` keep one holder — a device of a user
    /// before one of nobody, then the one that got it last (then the newer row) — the others lose it; and the index
    /// on tokens is unique again, so that two registrations racing leave one holder on every backend. Numbered apart
    /// from the versions other branches take; any order lands (see `Migration`).
    static let oneTokenHolder = Migration(version: 33, name: "one_token_holder") { _ in
        [
            """
            UPDATE devices SET token = NULL
            WHERE token IS NOT NULL AND EXISTS (
                SELECT 1 FROM devices o
                WHERE o.business_id = devices.business_id AND o.platform = devices.platform AND o.token = devices.token
                  AND o.id <> devices.id
                  AND ((o.user_id IS NOT NULL AND devices.user_id IS NULL)
                    OR ((o.user_id IS NULL) = (devices.user_id IS NULL)
                      AND (COALESCE(o.token_updated_at, 0) > COALESCE(devices.token_updated_at, 0)
                        OR (COALESCE(o.token_updated_at, 0) = COALESCE(devices.token_updated_at, 0)
                          AND o.id > devices.id)))))
            """,
            "DROP INDEX devices_token",
            "CREATE UNIQUE INDEX devices_token ON devices (business_id, platform, token) WHERE token IS NOT NULL",
        ]
    }
}
