import HeraldModel

extension UserRecords {
    /// The users of `businessID` with these external ids (as many as SQL binds at once: callers batch by the
    /// thousand).
    public func find(businessID: Int64, externalIDs: [String]) throws -> [User] {
        guard !externalIDs.isEmpty else { return [] }
        return try tx.connection.rows(
            """
            SELECT \(raw: Self.columns) FROM users
            WHERE business_id = \(businessID) AND external_id IN (\(list: externalIDs))
            """
        ).map { Self.decode($0) }
    }

    /// The users of `businessID` with these emails (lower-cased).
    public func find(businessID: Int64, emails: [String]) throws -> [User] {
        guard !emails.isEmpty else { return [] }
        return try tx.connection.rows(
            "SELECT \(raw: Self.columns) FROM users WHERE business_id = \(businessID) AND email IN (\(list: emails))"
        ).map { Self.decode($0) }
    }

    /// Creates a user known only from an import: no password (nobody signs in as them until they sign up).
    public func insertImported(
        businessID: Int64, externalID: String?, email: String?, firstName: String, lastName: String, attributes: JSON,
        at now: Timestamp
    ) throws -> User {
        Self.decode(
            try tx.connection.row(
                """
                INSERT INTO users (business_id, external_id, email, password_hash, first_name, last_name, attributes,
                    created_at, updated_at)
                VALUES (\(businessID), \(externalID), \(email), '', \(firstName), \(lastName),
                    \(attributes.encodedString), \(now), \(now))
                RETURNING \(raw: Self.columns)
                """)!)
    }

    /// Gives a user an import made, who never signed up (no password), `new`'s password, and its names and phone
    /// where it has them: they sign up into their own record, keeping its id, attributes and devices. Nil when the
    /// user has a password by now (another sign-up got there first: the update waits for its row lock, then finds
    /// the password set).
    public func claimImported(id: Int64, by new: NewUser, at now: Timestamp) throws -> User? {
        try tx.connection.row(
            """
            UPDATE users SET password_hash = \(new.passwordHash),
                first_name = CASE WHEN \(new.firstName) = '' THEN first_name ELSE \(new.firstName) END,
                last_name = CASE WHEN \(new.lastName) = '' THEN last_name ELSE \(new.lastName) END,
                phone = COALESCE(\(new.phone), phone), updated_at = \(now)
            WHERE id = \(id) AND business_id = \(new.businessID) AND password_hash = ''
            RETURNING \(raw: Self.columns)
            """
        ).map { Self.decode($0) }
    }

    /// Writes what an import sets of a user: external id, email, names and attributes.
    public func saveImported(_ user: User) throws {
        try tx.connection.execute(
            """
            UPDATE users SET external_id = \(user.externalID), email = \(user.email), first_name = \(user.firstName),
                last_name = \(user.lastName), attributes = \(user.attributes.encodedString), updated_at = \(user.updatedAt)
            WHERE id = \(user.id)
            """)
    }
}
