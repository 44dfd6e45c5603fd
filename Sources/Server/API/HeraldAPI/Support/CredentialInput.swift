import HeraldCrypto
import HeraldHTTPServer
import HeraldModel

/// What the admin API accepts as a business's push credentials: Apple's `.p8` key with its ids, and Google's
/// service-account file. Every field checked, all problems answered at once; the key is parsed, never echoed.
enum CredentialInput {
    /// An APNs token-auth key as given: its non-secret settings and the `.p8` text.
    struct APNs {
        var keyID: String
        var teamID: String
        var topic: String
        var environment: String
        var keyText: String

        /// What the store shows operators (never the key).
        var settings: [String: String] {
            ["key_id": keyID, "team_id": teamID, "topic": topic, "environment": environment]
        }
    }

    /// `{"key_p8","key_id","team_id","topic","environment"?}` checked; 422 with every problem otherwise.
    static func apns(_ body: JSON) throws -> APNs {
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["key_p8", "key_id", "team_id", "topic", "environment"], prefix: "")
        let keyText = AdminInput.requiredString(body, "key_p8", max: 10_000, &errors, shape: nil)
        if let keyText {
            do {
                _ = try P256PrivateKey(pemRepresentation: keyText)
            } catch let error as CryptoError where error.code == .unsupportedKey {
                errors.add("key_p8", "must be an Apple .p8 key (P-256); this is another kind of key")
            } catch {
                errors.add("key_p8", "is not a PEM private key (paste the whole .p8 file)")
            }
        }
        let keyID = AdminInput.requiredString(body, "key_id", max: 10, &errors)
        if let keyID, !AdminInput.isAppleIdentifier(keyID) {
            errors.add("key_id", "must be 10 letters or digits (the .p8 key's id)")
        }
        let teamID = AdminInput.requiredString(body, "team_id", max: 10, &errors)
        if let teamID, !AdminInput.isAppleIdentifier(teamID) {
            errors.add("team_id", "must be 10 letters or digits (your Apple team id)")
        }
        let topic = AdminInput.requiredString(body, "topic", max: 255, &errors)
        if let topic, !AdminInput.isBundleID(topic) {
            errors.add("topic", "must be the app's bundle id, like com.example.app")
        }
        let environment = body["environment"]?.stringValue ?? "production"
        if body["environment"] != nil,
            body["environment"]?.stringValue == nil || !["sandbox", "production"].contains(environment)
        {
            errors.add("environment", "must be sandbox or production")
        }
        try errors.check()
        return APNs(keyID: keyID!, teamID: teamID!, topic: topic!, environment: environment, keyText: keyText!)
    }

    /// A service account as given: its non-secret settings and the whole key file.
    struct FCM {
        var settings: [String: String]
        var account: JSON

        var projectID: String { settings["project_id"] ?? "" }
        var clientEmail: String { settings["client_email"] ?? "" }
    }

    /// `{"service_account":{…}}` (or its JSON as a string) checked; 422 with every problem otherwise.
    static func fcm(_ body: JSON) throws -> FCM {
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["service_account"], prefix: "")
        guard let account = body["service_account"] else {
            throw HTTPError.invalid("service_account", "can't be blank (paste the service-account key file's JSON)")
        }
        // Some tools hand the key file over as a string of JSON.
        let parsed: JSON
        if let text = account.stringValue {
            guard let inner = try? JSON.parse(text) else { throw HTTPError.invalid("service_account", "is not JSON") }
            parsed = inner
        } else {
            parsed = account
        }
        guard case .object = parsed else {
            throw HTTPError.invalid("service_account", "must be the key file's JSON object")
        }
        if let type = parsed["type"], type.stringValue != "service_account" {
            errors.add("service_account.type", "must be service_account")
        }
        let projectID = AdminInput.requiredString(parsed, "project_id", max: 100, &errors, prefix: "service_account.")
        // It goes into the send URL's path (`/v1/projects/<id>/messages:send`): Google's form only.
        if let projectID, !isFirebaseProjectID(projectID) {
            errors.add(
                "service_account.project_id",
                "must be a Firebase project id (6 to 30 lowercase letters, digits and hyphens, starting with a letter)")
        }
        let email = AdminInput.requiredString(parsed, "client_email", max: 320, &errors, prefix: "service_account.")
        if let email, !email.contains("@") { errors.add("service_account.client_email", "is invalid") }
        let tokenURI = AdminInput.requiredString(parsed, "token_uri", max: 2000, &errors, prefix: "service_account.")
        // The signed assertion it receives is worth an access token: never sent in the clear.
        if let tokenURI, !MediaInput.isWebURL(tokenURI, secure: true) {
            errors.add("service_account.token_uri", "must be an https URL")
        }
        if let key = AdminInput.requiredString(
            parsed, "private_key", max: 20_000, &errors, prefix: "service_account.", shape: nil)
        {
            do {
                _ = try RSAPrivateKey(pemRepresentation: key)
            } catch {
                errors.add("service_account.private_key", "is not an RSA private key of at least 2048 bits")
            }
        }
        try errors.check()
        var settings = ["project_id": projectID!, "client_email": email!, "token_uri": tokenURI!]
        if let keyID = parsed["private_key_id"]?.stringValue { settings["private_key_id"] = keyID }
        return FCM(settings: settings, account: parsed)
    }

    /// The most sends a minute a project's quota may be set to (a hundred times Google's default).
    static let maxFCMQuota = 60_000_000

    /// `{"quota_per_minute": n | null}` checked: a whole number of sends a minute, 1 to 60,000,000, or null (the
    /// nodes' default); 422 otherwise.
    static func fcmQuota(_ body: JSON) throws -> Int? {
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: ["quota_per_minute"], prefix: "")
        try errors.check()
        guard let value = body["quota_per_minute"] else {
            throw HTTPError.invalid("quota_per_minute", "can't be blank (a number of sends a minute, or null)")
        }
        if value.isNull { return nil }
        guard let perMinute = value.int64Value, (1...Int64(maxFCMQuota)).contains(perMinute) else {
            throw HTTPError.invalid(
                "quota_per_minute", "must be a whole number of sends a minute from 1 to \(maxFCMQuota), or null")
        }
        return Int(perMinute)
    }

    /// Google's rule for project ids: 6–30 characters of `a-z`, `0-9` and `-`, a letter first, no hyphen last.
    static func isFirebaseProjectID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (6...30).contains(bytes.count), let first = bytes.first, let last = bytes.last,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), last != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
    }
}
