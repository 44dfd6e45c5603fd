import HeraldModel

/// Users. Email (and phone, when set) are unique per business: a taken one is `StoreError.conflict` naming it.
package struct UserRecords {
    let tx: StoreTransaction
    init(_ tx: StoreTransaction) { self.tx = tx }

    static let columns = """
        id, business_id, email, password_hash, first_name, last_name, phone, points, banked_cents, created_at, \
        updated_at, inbox_version, external_id, attributes
        """

    static func decode(_ row: SQLRow, from o: Int = 0) -> User {
        User(
            id: row.int(o), businessID: row.int(o + 1), email: row.optionalText(o + 2), passwordHash: row.text(o + 3),
            firstName: row.text(o + 4), lastName: row.text(o + 5), phone: row.optionalText(o + 6),
            points: row.int(o + 7), bankedCurrency: Money(cents: row.int(o + 8)), inboxVersion: row.int(o + 11),
            externalID: row.optionalText(o + 12), attributes: Columns.json(row.text(o + 13)),
            createdAt: row.timestamp(o + 9), updatedAt: row.timestamp(o + 10))
    }

    /// Creates a user.
    package func insert(_ new: NewUser, at now: Timestamp) throws -> User {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO users (business_id, email, password_hash, first_name, last_name, phone, created_at, updated_at)
                VALUES (\(new.businessID), \(new.email), \(new.passwordHash), \(new.firstName), \(new.lastName),
                        \(new.phone), \(now), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// The user `id` of `businessID` (nil for another business's user).
    package func find(businessID: Int64, id: Int64) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE id = \(id) AND business_id = \(businessID)"
        ).map { Self.decode($0) }
    }

    /// The user `id` of `businessID`, locked to the transaction where the database locks rows: what is read
    /// (points, banked currency) may be written back from it.
    package func lock(businessID: Int64, id: Int64) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE id = \(id) AND business_id = \(businessID) \(tx.forUpdate)"
        ).map { Self.decode($0) }
    }

    /// The user with `email` (lower-cased) in `businessID`.
    package func find(businessID: Int64, email: String) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND email = \(email)"
        ).map { Self.decode($0) }
    }

    /// The user with `phone` in `businessID`.
    package func find(businessID: Int64, phone: String) throws -> User? {
        try tx.connection.row(
            "SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND phone = \(phone)"
        ).map { Self.decode($0) }
    }

    /// Writes a user's profile fields (email, password hash, names, phone).
    package func saveProfile(_ user: User) throws {
        try tx.connection.execute(
            """
            UPDATE users SET email = \(user.email), password_hash = \(user.passwordHash), first_name = \(user.firstName),
                last_name = \(user.lastName), phone = \(user.phone), updated_at = \(user.updatedAt)
            WHERE id = \(user.id)
            """)
    }

    /// Adds `points` (negative to take some back, never below zero) and `currency` to a user's balances, in the
    /// database (concurrent changes add up); returns the balances after.
    package func addToBalance(id: Int64, points: Int64, currency: Money = .zero) throws -> (
        points: Int64, banked: Money
    ) {
        let row = try tx.connection.row(
            """
            UPDATE users SET points = CASE WHEN points + \(points) > 0 THEN points + \(points) ELSE 0 END,
                banked_cents = banked_cents + \(currency.cents)
            WHERE id = \(id) RETURNING points, banked_cents
            """)
        guard let row else { throw StoreError.notFound("user") }
        return (row.int(0), Money(cents: row.int(1)))
    }

    /// Counts a change to a user's inbox (validating cached pages and ETags).
    package func bumpInboxVersion(id: Int64) throws {
        try tx.connection.execute("UPDATE users SET inbox_version = inbox_version + 1 WHERE id = \(id)")
    }
}
