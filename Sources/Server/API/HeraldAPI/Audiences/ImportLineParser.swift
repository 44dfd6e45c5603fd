import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldEntities

/// Reads one line of a user import (`POST …/users/import`) into an `ImportedUser`, or says everything wrong with
/// it, field by field:
///
/// `{"external_id"|"email", "first_name"?, "last_name"?, "attributes"?:{…}, "devices"?:[{"install_id"?,
/// "platform", "push_token"}]}`
///
/// - `external_id`: 1–255 characters (a whole number is taken as its digits); `email` as the mobile API takes it;
///   at least one of them.
/// - `attributes`: at most 100 keys of 1–100 letters, digits, `_`, `-`, `.`, `:`; values strings (≤ 1,000 bytes),
///   numbers or booleans; `null` removes the attribute.
/// - `devices`: at most 20; `platform` `ios` or `android`; `push_token` a token of that platform (≤ 1,024 bytes);
///   `install_id` 1–200 characters.
/// - Any other field is refused, never ignored.
enum ImportLineParser {
    /// The most devices on one line.
    static let maximumDevices = 20
    /// The most attributes on one line.
    static let maximumAttributes = 100

    private static let fields: Set<String> = [
        "external_id", "email", "first_name", "last_name", "attributes", "devices",
    ]
    private static let deviceFields: Set<String> = ["install_id", "platform", "push_token"]

    /// The user of line `number`; nil, with `errors` saying why by field, when the line is refused.
    static func parse(_ bytes: [UInt8], line number: Int, _ errors: inout FieldErrors) -> ImportedUser? {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            errors.add("base", "malformed JSON: \(error.description)")
            return nil
        }
        guard json.objectValue != nil else {
            errors.add("base", "each line must be a JSON object (a user); got \(json.typeName)")
            return nil
        }
        errors.refuseUnknown(json, known: fields)
        let externalID = externalID(json["external_id"], &errors)
        let email = AccountInput.email(json["email"], &errors, required: false)
        if json["external_id"].map(\.isNull) ?? true, json["email"].map(\.isNull) ?? true {
            errors.add("base", "needs an external_id or an email")
        }
        let firstName = AccountInput.name(json["first_name"], "first_name", &errors)
        let lastName = AccountInput.name(json["last_name"], "last_name", &errors)
        let attributes = attributes(json["attributes"], &errors)
        let devices = devices(json["devices"], &errors)
        guard errors.isEmpty else { return nil }
        return ImportedUser(
            line: number, externalID: externalID, email: email, firstName: firstName, lastName: lastName,
            attributes: attributes, devices: devices)
    }

    private static func externalID(_ value: JSON?, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else { return nil }
        let text: String
        switch value {
        case .string(let string): text = string.trimmingCharacters(in: " ")
        case .int(let number): text = String(number)
        default:
            errors.add("external_id", "must be a string")
            return nil
        }
        if text.isEmpty || text.count > 255 || !DisplayText.isLine(text) {
            errors.add("external_id", "must be 1–255 printable characters")
            return nil
        }
        return text
    }

    private static func attributes(_ value: JSON?, _ errors: inout FieldErrors) -> [(key: String, value: JSON)] {
        guard let value, !value.isNull else { return [] }
        guard let pairs = value.objectValue else {
            errors.add("attributes", "must be an object")
            return []
        }
        guard pairs.count <= maximumAttributes else {
            errors.add("attributes", "has too many keys (at most \(maximumAttributes))")
            return []
        }
        var accepted: [(key: String, value: JSON)] = []
        for (key, item) in pairs {
            guard SegmentFilter.isAttributeKey(key) else {
                errors.add(
                    "attributes", "keys are 1–\(SegmentFilter.maximumKeyLength) letters, digits, _, -, . or :")
                continue
            }
            let field = "attributes." + key
            switch item {
            case .string(let text):
                if text.utf8.count > SegmentFilter.maximumStringBytes {
                    errors.add(field, "is too long (at most \(SegmentFilter.maximumStringBytes) bytes)")
                } else if text.utf8.contains(0) {
                    errors.add(field, "must not contain NUL")
                }
            case .double(let number) where !number.isFinite:
                errors.add(field, "must be a finite number")
            case .int, .double, .bool, .null:
                break
            case .array, .object:
                errors.add(field, "must be a string, a number, a boolean or null; got \(item.typeName)")
            }
            accepted.removeAll { $0.key == key }
            accepted.append((key, item))
        }
        return accepted
    }

    private static func devices(_ value: JSON?, _ errors: inout FieldErrors) -> [ImportedDevice] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else {
            errors.add("devices", "must be a list of devices")
            return []
        }
        guard items.count <= maximumDevices else {
            errors.add("devices", "has too many devices (at most \(maximumDevices))")
            return []
        }
        var devices: [ImportedDevice] = []
        for (index, item) in items.enumerated() {
            let prefix = "devices[\(index)]"
            guard item.objectValue != nil else {
                errors.add(prefix, "must be an object")
                continue
            }
            errors.refuseUnknown(item, known: deviceFields, prefix: prefix + ".")
            var platform: PushPlatform?
            switch item["platform"]?.stringValue {
            case "ios": platform = .apns
            case "android": platform = .fcm
            default: errors.add(prefix + ".platform", "must be ios or android")
            }
            var token: String?
            if let text = item["push_token"]?.stringValue?.trimmingCharacters(in: " "), !text.isEmpty {
                if let platform {
                    token = text.utf8.count <= 1024 ? AccountInput.validToken(text, platform: platform) : nil
                    if token == nil {
                        errors.add(prefix + ".push_token", "is not a valid \(platform == .apns ? "APNs" : "FCM") token")
                    }
                }
            } else {
                errors.add(prefix + ".push_token", "must be the device's push token")
            }
            var installID: String?
            if let id = item["install_id"], !id.isNull {
                if let text = id.stringValue, !text.isEmpty, text.count <= 200, DisplayText.isLine(text) {
                    installID = text
                } else {
                    errors.add(prefix + ".install_id", "must be 1–200 printable characters")
                }
            }
            if let platform, let token {
                devices.append(
                    ImportedDevice(
                        key: installID ?? derivedKey(platform: platform, token: token), keyGiven: installID != nil,
                        platform: platform, token: token))
            }
        }
        return devices
    }

    /// The key of a device imported without an install id: stable for its token, short whatever the token's size.
    static func derivedKey(platform: PushPlatform, token: String) -> String {
        "token:" + Hex.encode(SHA256.hash(Array((platform.rawValue + ":" + token).utf8)))
    }
}
