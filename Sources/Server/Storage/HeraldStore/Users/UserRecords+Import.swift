import HeraldModel

extension UserRecords {
    /// The users of `businessID` with these external ids (as many as SQL binds at once: callers batch by the
    /// thousand).
    package func find(businessID: Int64, externalIDs: [String]) throws -> [User] {
        guard !externalIDs.isEmpty else { return [] }
        return try tx.connection.rows(
            tx.rows(Self.columns, of: "users", where: "business_id = \(businessID)", "external_id", in: externalIDs)
        ).map { Self.decode($0) }
    }

    /// The users of `businessID` with these emails (lower-cased).
    package func find(businessID: Int64, emails: [String]) throws -> [User] {
        guard !emails.isEmpty else { return [] }
        return try tx.connection.rows(
            tx.rows(Self.columns, of: "users", where: "business_id = \(businessID)", "email", in: emails)
        ).map { Self.decode($0) }
    }

    /// Creates a user known only from an import: no password (nobody signs in as them until they sign up).
    package func insertImported(
        businessID: Int64, externalID: String?, email: String?, firstName: String, lastName: String, attributes: JSON,
        at now: Timestamp
    ) throws -> User {
        try insertImported([
            User(
                id: 0, businessID: businessID, email: email, passwordHash: "", firstName: firstName,
                lastName: lastName, externalID: externalID, attributes: attributes, createdAt: now, updatedAt: now)
        ])[0]
    }

    /// Creates users known only from an import (their ids ignored, no password), many a statement; returns them
    /// with their ids, in the order given. Each has an external id, else an email, of its own: its id is read back
    /// by it (an import's batch takes a statement per row on PostgreSQL otherwise, a round trip each).
    package func insertImported(_ users: [User]) throws -> [User] {
        guard !users.isEmpty else { return [] }
        func identity(externalID: String?, email: String?) -> String {
            externalID.map { "x" + $0 } ?? "e" + (email ?? "")
        }
        var ids: [String: Int64] = [:]
        ids.reserveCapacity(users.count)
        try tx.connection.insertRows(
            into: "users",
            columns: [
                "business_id", "external_id", "email", "password_hash", "first_name", "last_name", "attributes",
                "created_at", "updated_at",
            ],
            users.map { user in
                [
                    user.businessID.sqlValue, user.externalID.sqlValue, user.email.sqlValue, .text(""),
                    user.firstName.sqlValue, user.lastName.sqlValue, user.attributes.encodedString.sqlValue,
                    user.createdAt.sqlValue, user.updatedAt.sqlValue,
                ]
            }, returning: "id, external_id, email"
        ) { ids[identity(externalID: $0.optionalText(1), email: $0.optionalText(2))] = $0.int(0) }
        return try users.map { user in
            guard let id = ids[identity(externalID: user.externalID, email: user.email)] else {
                throw StoreError(.database, "an imported user came back without its id")
            }
            var created = user
            created.id = id
            created.passwordHash = ""
            return created
        }
    }

    /// Gives a user an import made, who never signed up (no password), `new`'s password, and its names and phone
    /// where it has them: they sign up into their own record, keeping its id, attributes and devices. Nil when the
    /// user has a password by now (another sign-up got there first: the update waits for its row lock, then finds
    /// the password set).
    package func claimImported(id: Int64, by new: NewUser, at now: Timestamp) throws -> User? {
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
    package func saveImported(_ user: User) throws {
        try tx.connection.execute(
            """
            UPDATE users SET external_id = \(user.externalID), email = \(user.email), first_name = \(user.firstName),
                last_name = \(user.lastName), attributes = \(user.attributes.encodedString), updated_at = \(user.updatedAt)
            WHERE id = \(user.id)
            """)
    }
}
