import HeraldStore

extension StoreTransaction {
    /// The users `ids` of `businessID`, in that order: what an operator's call naming users acts on. Refused on
    /// `user_ids`, naming (the first 20 of) those that are not the business's users, rather than skipping them.
    func knownUsers(businessID: Int64, ids: [Int64]) throws -> [User] {
        var unknown: [Int64] = []
        let users = try ids.compactMap { id -> User? in
            let user = try self.users.find(businessID: businessID, id: id)
            if user == nil { unknown.append(id) }
            return user
        }
        guard unknown.isEmpty else {
            throw DomainError(
                .invalid, field: "user_ids",
                "unknown users: " + unknown.prefix(20).map(String.init).joined(separator: ", "))
        }
        return users
    }
}
