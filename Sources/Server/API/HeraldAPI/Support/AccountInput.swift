import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the mobile API accepts in account fields, with Punchh's error wording.
enum AccountInput {
    /// A push token from `apn_token` or `gcm_token`; `value` nil means clear (`""`).
    struct PushToken {
        let platform: PushPlatform
        let value: String?
    }

    /// Trimmed, in Unicode NFC (so "é" typed either way is one account), lower-cased.
    static func normalizedEmail(_ text: String) -> String {
        // ASCII is its own NFC: skip Foundation's normalization, the cost of a bulk import's emails.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.trimmingCharacters(in: " ").lowercased() }
        return text.trimmingCharacters(in: " ").precomposedStringWithCanonicalMapping.lowercased()
    }

    static func email(_ value: JSON?, _ errors: inout FieldErrors, required: Bool) -> String? {
        guard let value, !value.isNull else {
            if required { errors.add("email", "can't be blank") }
            return nil
        }
        guard let text = value.stringValue else {
            errors.add("email", "is invalid")
            return nil
        }
        let email = normalizedEmail(text)
        if email.isEmpty {
            errors.add("email", "can't be blank")
            return nil
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let domainLabels = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
        // In ASCII, controls and whitespace are the bytes up to space and DEL (and nothing is a format character).
        let unprintable =
            email.utf8.allSatisfy({ $0 < 0x80 })
            ? email.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
            : email.unicodeScalars.contains { scalar in
                scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                    || scalar.properties.isWhitespace
            }
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, domainLabels.count >= 2,
            domainLabels.allSatisfy({ !$0.isEmpty }), !unprintable
        else {
            errors.add("email", "is invalid")
            return nil
        }
        return email
    }

    static func password(_ value: JSON?, confirmation: JSON?, _ errors: inout FieldErrors, required: Bool) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else {
            if required || value != nil {
                errors.add("password", value == nil || value?.stringValue != nil ? "can't be blank" : "is invalid")
            }
            return nil
        }
        if text.count < 8 { errors.add("password", "is too short (minimum is 8 characters)") }
        if text.utf8.count > 512 { errors.add("password", "is too long (maximum is 512 bytes)") }
        if let confirmation, !confirmation.isNull, confirmation.stringValue != text {
            errors.add("password_confirmation", "doesn't match Password")
        }
        return text
    }

    static func name(_ value: JSON?, _ field: String, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else {
            errors.add(field, "is invalid")
            return nil
        }
        if text.count > 100 { errors.add(field, "is too long (maximum is 100 characters)") }
        // A name is shown: in pushes' templates ({{first_name}}), the console, the app.
        if let problem = DisplayText.problem(text, .line) {
            errors.add(field, problem)
            return nil
        }
        return text.trimmingCharacters(in: " ")
    }

    /// A phone number: digits kept (an optional leading +), 7 to 15 of them. `.some(nil)` clears it.
    static func phone(_ value: JSON?, _ errors: inout FieldErrors) -> String?? {
        guard let value else { return nil }
        if value.isNull { return .some(nil) }
        guard let text = value.stringValue ?? value.int64Value.map({ String($0) }) else {
            errors.add("phone", "is invalid")
            return nil
        }
        if text.isEmpty { return .some(nil) }
        let digits = text.filter { $0.isASCII && $0.isNumber }
        let allowed = text.allSatisfy { ($0.isASCII && $0.isNumber) || " -().+".contains($0) }
        guard allowed, (7...15).contains(digits.count) else {
            errors.add("phone", "is invalid")
            return nil
        }
        return .some(digits)
    }

    /// `apn_token` or `gcm_token` (an FCM token, despite its name). Both at once is an error.
    static func pushToken(_ fields: JSON, _ errors: inout FieldErrors) -> PushToken? {
        let apns = fields["apn_token"]
        let fcm = fields["gcm_token"]
        if apns != nil && fcm != nil, apns?.stringValue?.isEmpty == false, fcm?.stringValue?.isEmpty == false {
            errors.add("base", "send either apn_token or gcm_token, not both")
            return nil
        }
        if let apns, apns.stringValue?.isEmpty == false || fcm == nil {
            return token(apns, field: "apn_token", platform: .apns, &errors)
        }
        if let fcm { return token(fcm, field: "gcm_token", platform: .fcm, &errors) }
        return nil
    }

    /// A push token of `platform` read from `value`: null or blank clears (a token of nil), else it must look like
    /// one (APNs: hex, 64 to 200 digits, lower-cased; FCM: 20 to 4096 URL-safe characters).
    static func token(_ value: JSON, field: String, platform: PushPlatform, _ errors: inout FieldErrors)
        -> PushToken?
    {
        if value.isNull { return PushToken(platform: platform, value: nil) }
        guard let text = value.stringValue else {
            errors.add(field, "is invalid")
            return nil
        }
        let token = text.trimmingCharacters(in: " ")
        if token.isEmpty { return PushToken(platform: platform, value: nil) }
        guard let valid = validToken(token, platform: platform) else {
            errors.add(field, "is invalid")
            return nil
        }
        return PushToken(platform: platform, value: valid)
    }

    /// `token` as stored (APNs tokens lower-cased) if it is one `platform` could have issued: APNs tokens are hex,
    /// 64 to 200 digits; FCM tokens 20 to 4096 of letters, digits and `-_:.`.
    static func validToken(_ token: String, platform: PushPlatform) -> String? {
        let valid: Bool
        if platform == .apns {
            // APNs device tokens are hex: 32 bytes today, possibly longer later.
            valid =
                token.utf8.count >= 64 && token.utf8.count <= 200 && token.utf8.count % 2 == 0
                && token.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
        } else {
            valid =
                token.utf8.count >= 20 && token.utf8.count <= 4096
                && token.utf8.allSatisfy {
                    ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95
                        || $0 == 58 || $0 == 46
                }
        }
        guard valid else { return nil }
        return platform == .apns ? token.lowercased() : token
    }

    /// The platform a device without a token probably is, from its User-Agent.
    static func platform(userAgent: String?) -> PushPlatform {
        guard let userAgent = userAgent?.lowercased() else { return .apns }
        return userAgent.contains("android") || userAgent.contains("okhttp") ? .fcm : .apns
    }
}
