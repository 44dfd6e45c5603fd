import HeraldModel

/// What the SDK keeps about its install, under the storage key `install`.
struct InstallRecord: Sendable, Equatable {
    /// The install's id, made once per install (a UUID).
    var installID: String
    /// A digest of the API key the credential came from: a new key registers again.
    var apiKeyDigest: String
    /// The credential, once registered.
    var credential: Credential?
    /// The push token as sent (hex for APNs).
    var pushToken: String?
    /// What the user allowed.
    var permissions: Permissions
    /// The device's segments.
    var segments: [String]
    /// A digest of the registration details last sent, and when.
    var lastSentDigest: String?
    var lastSentAt: Timestamp?
    /// `test_device` from a sandbox registration.
    var testDevice: TestDevice?
    /// `config` from registration, as sent.
    var config: JSON?
    /// A credential whose install `deleteMyData()` has not managed to delete yet.
    var pendingDeletion: Credential?
    /// The user the install belongs to (`Herald.identify`), nil after `logout()`.
    var externalID: String?
    /// What vouches for `externalID`: its HMAC under the business's identity key, from the business's backend.
    var identityToken: String?
    /// True once the server holds `externalID` (or, when it is nil, holds no user); false while it is to be sent.
    var identitySent = true

    /// A new install.
    init(installID: String, apiKeyDigest: String) {
        self.installID = installID
        self.apiKeyDigest = apiKeyDigest
        permissions = Permissions()
        segments = []
    }

    var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("install_id", .string(installID)), ("api_key_digest", .string(apiKeyDigest)),
        ]
        if let credential { pairs.append(("credential", credential.json)) }
        if let pushToken { pairs.append(("push_token", .string(pushToken))) }
        pairs.append(("permissions", InstallBody.permissions(permissions)))
        pairs.append(("segments", .array(segments.map { .string($0) })))
        if let lastSentDigest, let lastSentAt {
            pairs.append(
                ("last_sent", .object([("digest", .string(lastSentDigest)), ("at", .int(lastSentAt.milliseconds))])))
        }
        if let testDevice { pairs.append(("test_device", testDevice.json)) }
        if let config { pairs.append(("config", config)) }
        if let pendingDeletion { pairs.append(("pending_deletion", pendingDeletion.json)) }
        if let externalID { pairs.append(("external_id", .string(externalID))) }
        if let identityToken { pairs.append(("identity_token", .string(identityToken))) }
        if !identitySent { pairs.append(("identity_sent", .bool(false))) }
        return .object(pairs)
    }

    init?(json: JSON) {
        guard let installID = json["install_id"]?.stringValue, !installID.isEmpty,
            let digest = json["api_key_digest"]?.stringValue
        else { return nil }
        self.init(installID: installID, apiKeyDigest: digest)
        credential = Credential(json: json["credential"])
        pushToken = json["push_token"]?.stringValue
        permissions = Permissions(
            notifications: json["permissions"]?["notifications"]?.boolValue ?? false,
            location: json["permissions"]?["location"]?.stringValue.flatMap(Permissions.Location.init(rawValue:))
                ?? .none)
        segments = json["segments"]?.arrayValue?.compactMap(\.stringValue) ?? []
        lastSentDigest = json["last_sent"]?["digest"]?.stringValue
        lastSentAt = json["last_sent"]?["at"]?.int64Value.map(Timestamp.init(milliseconds:))
        testDevice = json["test_device"].flatMap(TestDevice.init(json:))
        config = json["config"]
        pendingDeletion = Credential(json: json["pending_deletion"])
        externalID = json["external_id"]?.stringValue
        identityToken = json["identity_token"]?.stringValue
        identitySent = json["identity_sent"]?.boolValue ?? true
    }
}

/// A sandbox install's standing: an admin approves it with its code (`POST …/test-devices`) before it gets sandbox
/// messages.
public struct TestDevice: Sendable, Hashable {
    /// `pending` or `approved`.
    public var status: String
    /// The code to give the admin.
    public var approvalCode: String

    /// A test device.
    public init(status: String, approvalCode: String) {
        self.status = status
        self.approvalCode = approvalCode
    }

    /// True once approved.
    public var isApproved: Bool { status == "approved" }

    var json: JSON { .object([("status", .string(status)), ("approval_code", .string(approvalCode))]) }

    init?(json: JSON) {
        guard let status = json["status"]?.stringValue, let code = json["approval_code"]?.stringValue else {
            return nil
        }
        self.init(status: status, approvalCode: code)
    }
}
