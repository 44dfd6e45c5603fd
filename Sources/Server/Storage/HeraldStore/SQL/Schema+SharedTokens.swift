extension Schema {
    /// A push token may be held by devices of two users (issue 35, item 11): a registration sending a token another
    /// user's device holds no longer takes it from that device — sending a token proves nothing — so both hold it
    /// until the provider answers that it is dead for one or its user logs out (`StoreTransaction.claimPushToken`
    /// in the domain says who gives it up). The unique index that allowed one holder per business and platform
    /// becomes a plain one, for the look-ups by token (claims, imports, the console's device search) — unique again
    /// since `oneTokenHolder` (issue 40), which gives a token one holder. Numbered apart
    /// from the versions other branches take; any order lands (see `Migration`).
    static let sharedPushTokens = Migration(version: 23, name: "shared_push_tokens") { _ in
        [
            "DROP INDEX devices_token",
            "CREATE INDEX devices_token ON devices (business_id, platform, token) WHERE token IS NOT NULL",
        ]
    }
}
