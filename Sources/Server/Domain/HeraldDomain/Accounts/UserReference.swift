/// How a caller names one user of a business: the POS by Herald's id, by email or by phone number.
package enum UserReference: Sendable, Hashable {
    /// Herald's id for the user (`user_id`).
    case id(Int64)
    /// Their email, normalised as sign-up stores it.
    case email(String)
    /// Their phone number, normalised as sign-up stores it.
    case phone(String)

    /// The request field the reference came in, which a miss is reported on.
    package var field: String {
        switch self {
        case .id: return "user_id"
        case .email: return "email"
        case .phone: return "phone"
        }
    }
}
