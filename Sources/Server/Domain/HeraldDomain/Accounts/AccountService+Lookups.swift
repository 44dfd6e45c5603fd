import HeraldModel
import HeraldStore

extension AccountService {
    /// The user `reference` names; not found on the field it was given by (`user_id`, `email`, `phone`).
    package func user(businessID: Int64, _ reference: UserReference) throws -> User {
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

    /// The user who signed up (or was imported) with `email`, if any: whose password a login checks.
    package func user(businessID: Int64, email: String) throws -> User? {
        try store.read { try $0.users.find(businessID: businessID, email: email) }
    }

    /// Refuses a sign-up whose email a signed-up user already has (a conflict on `email`); a user an import made
    /// (no password yet) signs up into that record. Checked before hashing the new password, only to spare that
    /// work: `signUp`'s constraint decides, even for two sign-ups racing.
    package func checkEmailAvailable(businessID: Int64, email: String) throws {
        if let existing = try user(businessID: businessID, email: email), !existing.awaitsSignUp {
            throw DomainError(.conflict, field: "email", "has already been taken")
        }
    }

    /// The key of the device a user's call comes from when the call names none: the device its session was signed
    /// in on (`sessionDeviceID`), while it is still the user's; else the user's own key for `platform`, where
    /// tokens registered without naming a device are kept (and which logging out such a session clears).
    package func deviceKey(userID: Int64, platform: PushPlatform, sessionDeviceID: Int64?) throws -> String {
        if let sessionDeviceID, let device = try store.read({ try $0.devices.find(id: sessionDeviceID) }),
            device.userID == userID
        {
            return device.deviceKey
        }
        return DeviceRegistration.userKey(userID: userID, platform: platform)
    }
}
