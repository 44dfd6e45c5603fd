import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the POS API accepts.
enum POSInput {
    /// The sources a check-in can come from.
    static let sources: Set<String> = ["qr", "phone", "online_ordering", "pos_scanner"]
    /// More points than this in one check-in is a mistake, not a visit.
    static let maximumPoints: Int64 = 100_000

    /// A positive id as a JSON integer or a string of digits.
    static func id(_ value: JSON) -> Int64? {
        if let number = value.int64Value, number > 0 { return number }
        if let text = value.stringValue, let number = PathID.parse(text), number > 0 { return number }
        return nil
    }

    static func requiredID(_ body: JSON, _ field: String, _ errors: inout FieldErrors) -> Int64? {
        guard let value = body[field], !value.isNull else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard let id = id(value) else {
            errors.add(field, "must be an id")
            return nil
        }
        return id
    }

    static func points(_ value: JSON?, _ errors: inout FieldErrors) -> Int64? {
        guard let value, !value.isNull else {
            errors.add("points", "can't be blank")
            return nil
        }
        guard let points = value.int64Value else {
            errors.add("points", "must be a whole number")
            return nil
        }
        guard points >= 0 else {
            errors.add("points", "must be greater than or equal to 0")
            return nil
        }
        guard points <= maximumPoints else {
            errors.add("points", "must be at most \(maximumPoints)")
            return nil
        }
        return points
    }

    /// An amount of money: a finite number from 0 to a billion, to the cent.
    static func amount(_ value: JSON?, field: String, _ errors: inout FieldErrors) -> Money? {
        guard let value, !value.isNull else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard let amount = value.doubleValue ?? value.stringValue.flatMap({ Double($0) }), amount.isFinite else {
            errors.add(field, "must be a number")
            return nil
        }
        guard amount >= 0, amount <= 1_000_000_000 else {
            errors.add(field, "must be between 0 and 1000000000")
            return nil
        }
        return Money(decimal: amount)
    }

    static func transactionID(_ value: JSON?, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue ?? value.int64Value.map({ String($0) }) else {
            errors.add("transaction_id", "must be a string")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            errors.add("transaction_id", "must be 1 to 100 characters")
            return nil
        }
        // It travels in the push (`t`) and shows in the app and the console.
        if let problem = DisplayText.problem(trimmed, .line) {
            errors.add("transaction_id", problem)
            return nil
        }
        return trimmed
    }

    /// The user the body names by `user_id`, `email` or `phone` (the first given), or nil with the error said.
    static func user(_ body: JSON, _ errors: inout FieldErrors) -> UserReference? {
        if let value = body["user_id"], !value.isNull {
            guard let id = Self.id(value) else {
                errors.add("user_id", "must be a user id")
                return nil
            }
            return .id(id)
        }
        if let email = body["email"]?.stringValue { return .email(AccountInput.normalizedEmail(email)) }
        if let value = body["phone"], !value.isNull {
            var phoneErrors = FieldErrors()
            guard let phone = AccountInput.phone(value, &phoneErrors) ?? nil else {
                errors.add("phone", "is invalid")
                return nil
            }
            return .phone(phone)
        }
        errors.add("user_id", "one of user_id, email or phone is required")
        return nil
    }
}
