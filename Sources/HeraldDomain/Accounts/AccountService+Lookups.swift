import HeraldModel
import HeraldStore

extension AccountService {
    /// The user `reference` names; not found on the field it was given by (`user_id`, `email`, `phone`).
    public func user(businessID: Int64, _ reference: UserReference) throws -> User {
        let found = try store.read { tx -> User? in
            switch reference {
            case .id(let id): return try tx.users.find(businessID: businessID, id: id)
            case .email(let email): return try tx.users.find(businessID: businessID, email: email)
            case .phone(let phone): return try tx.users.find(businessID: businessID, phone: phone)
            }
        }
        guard let found else {
            let message: String
            switch reference {
            case .id: message = "no such user"
            case .email: message = "no user with this email"
            case .phone: message = "no user with this phone number"
            }
            throw DomainError(.notFound, field: reference.field, message)
        }
        return found
    }
}
