import Foundation
import HeraldDomain
import HeraldModel

/// What the device API accepts in its fields (`POST /api/v1/installs`, `PUT /api/v1/installs/current`,
/// `PUT /api/v1/device/segments`). Unknown fields are refused, naming them, rather than ignored.
enum DeviceInput {
    /// The fields an install reports about itself (both calls).
    static let detailFields: Set<String> = [
        "platform", "push_token", "push_token_type", "apns_environment", "app_version", "os_version", "device_model",
        "locale", "timezone", "sdk_version", "permissions", "segments",
    ]
    /// The registration's fields.
    static let registrationFields = detailFields.union(["api_key", "install_id"])
    /// What a registration may add to prove the user of a known device (`OwnershipProof`).
    static let proofFields: Set<String> = ["access_token", "external_id", "identity_token"]
    /// The most segments a device has, and their length in characters (as the SDK counts them).
    static let maximumSegments = 100
    static let segmentLength = 1...255
    /// The longest install id, in bytes.
    static let maximumInstallIDLength = 255
    /// The longest version or model text, in characters.
    static let maximumTextLength = 100

    /// `install_id`: 1 to 255 bytes without control characters.
    static func installID(_ value: JSON?, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else {
            errors.add("install_id", "can't be blank")
            return nil
        }
        guard let text = value.stringValue else {
            errors.add("install_id", "must be a string")
            return nil
        }
        guard !text.isEmpty, text.utf8.count <= maximumInstallIDLength, DisplayText.isLine(text) else {
            errors.add(
                "install_id",
                "must be 1 to \(maximumInstallIDLength) bytes without control characters or bidirectional controls")
            return nil
        }
        return text
    }

    /// Every field an install reports, checked (all required but `push_token`, `apns_environment` and
    /// `segments`).
    static func details(_ body: JSON, userAgent: String?, _ errors: inout FieldErrors) -> InstallDetails? {
        _ = oneOf(body["platform"], "platform", ["ios", "android"], &errors)
        let type = oneOf(body["push_token_type"], "push_token_type", ["apns", "fcm"], &errors)
        var details = InstallDetails(pushPlatform: PushPlatform(type ?? "apns"))
        if let value = body["push_token"], let type {
            details.pushToken = AccountInput.token(value, field: "push_token", platform: PushPlatform(type), &errors)
                .map { $0.value }
        }
        if let value = body["apns_environment"] {
            if value.isNull {
                details.apnsEnvironment = .some(nil)
            } else if let environment = oneOf(value, "apns_environment", ["sandbox", "production"], &errors) {
                details.apnsEnvironment = .some(environment)
            }
        }
        details.appVersion = text(body["app_version"], "app_version", &errors)
        details.osVersion = text(body["os_version"], "os_version", &errors)
        details.deviceModel = text(body["device_model"], "device_model", &errors)
        details.sdkVersion = text(body["sdk_version"], "sdk_version", &errors)
        details.locale = locale(body["locale"], &errors)
        details.timeZone = timeZone(body["timezone"], &errors)
        if let permissions = permissions(body["permissions"], &errors) {
            details.notificationsEnabled = permissions.notifications
            details.locationPermission = permissions.location
        }
        if let value = body["segments"], !value.isNull {
            details.segments = segments(value, field: "segments", &errors)
        }
        details.userAgent = userAgent.map { String($0.prefix(500)) }
        return type == nil ? nil : details
    }

    /// A required string that is one of `allowed`.
    static func oneOf(_ value: JSON?, _ field: String, _ allowed: [String], _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard let text = value.stringValue, allowed.contains(text) else {
            errors.add(field, "must be " + allowed.joined(separator: " or "))
            return nil
        }
        return text
    }

    /// A required text of 1 to 100 characters without control characters, trimmed of spaces.
    static func text(_ value: JSON?, _ field: String, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard let raw = value.stringValue else {
            errors.add(field, "must be a string")
            return nil
        }
        let text = raw.trimmingCharacters(in: " ")
        guard !text.isEmpty else {
            errors.add(field, "can't be blank")
            return nil
        }
        guard text.count <= maximumTextLength, DisplayText.isLine(text) else {
            errors.add(
                field,
                "must be at most \(maximumTextLength) characters without control characters or bidirectional controls")
            return nil
        }
        return text
    }

    /// A locale identifier (`en_US`, `en-US`, `sr_Latn_RS@calendar=gregorian`): 2 to 64 ASCII letters, digits and
    /// `_ - @ = ; .`.
    static func locale(_ value: JSON?, _ errors: inout FieldErrors) -> String? {
        guard let text = self.text(value, "locale", &errors) else { return nil }
        guard (2...64).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || "_-@=;.".utf8.contains(byte)
            })
        else {
            errors.add("locale", "must be a locale identifier like en_US")
            return nil
        }
        return text
    }

    /// An IANA time zone the server knows (`America/New_York`): local times and quiet hours are in it.
    static func timeZone(_ value: JSON?, _ errors: inout FieldErrors) -> String? {
        guard let text = self.text(value, "timezone", &errors) else { return nil }
        guard text.utf8.count <= 64,
            text.utf8.allSatisfy({ byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || "_-+/".utf8.contains(byte)
            }), TimeZone(identifier: text) != nil
        else {
            errors.add("timezone", "must be an IANA time zone like America/New_York")
            return nil
        }
        return text
    }

    /// `{"notifications":bool,"location":"always"|"when_in_use"|"none"}`.
    static func permissions(_ value: JSON?, _ errors: inout FieldErrors) -> (notifications: Bool, location: String)? {
        guard let value, !value.isNull else {
            errors.add("permissions", "can't be blank")
            return nil
        }
        guard value.objectValue != nil else {
            errors.add("permissions", "must be an object {\"notifications\",\"location\"}")
            return nil
        }
        errors.refuseUnknown(value, known: ["notifications", "location"], prefix: "permissions.")
        let notifications = value["notifications"]?.boolValue
        if notifications == nil { errors.add("permissions.notifications", "must be true or false") }
        let location = oneOf(value["location"], "permissions.location", ["always", "when_in_use", "none"], &errors)
        guard let notifications, let location else { return nil }
        return (notifications, location)
    }

    /// A list of at most 100 segments, each 1 to 255 characters without control characters (duplicates are one).
    static func segments(_ value: JSON?, field: String, _ errors: inout FieldErrors) -> [String]? {
        guard let items = value?.arrayValue else {
            errors.add(field, "must be a list of segment names")
            return nil
        }
        guard items.count <= maximumSegments else {
            errors.add(field, "must have at most \(maximumSegments) segments (has \(items.count))")
            return nil
        }
        var segments: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue, segmentLength.contains(text.count), DisplayText.isLine(text) else {
                errors.add(
                    "\(field)[\(index)]",
                    "must be a string of \(segmentLength.lowerBound) to \(segmentLength.upperBound) characters "
                        + "without control characters or bidirectional controls")
                continue
            }
            segments.append(text)
        }
        return segments
    }
}
