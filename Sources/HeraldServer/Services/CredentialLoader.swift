import HeraldAPNs
import HeraldCrypto
import HeraldFCM
import HeraldModel
import HeraldStore

/// Opens the sealed push credentials of a business for the providers (which cache what they get).
struct CredentialLoader: Sendable {
    let store: any Store
    let sealer: SecretSealer

    /// The APNs credential of `businessID`, or nil when it has none.
    func apns(_ businessID: Int64) throws -> APNsCredential? {
        guard let stored = try store.credential(businessID: businessID, platform: .apns) else { return nil }
        let pem = String(decoding: try sealer.open(stored.sealedKey, purpose: "apns-key"), as: UTF8.self)
        return APNsCredential(
            keyID: stored.settings["key_id"] ?? "", teamID: stored.settings["team_id"] ?? "",
            topic: stored.settings["topic"] ?? "",
            environment: APNsCredential.Environment(stored.settings["environment"] ?? "production"),
            key: try P256PrivateKey(pemRepresentation: pem), version: stored.updatedAt)
    }

    /// The FCM service account of `businessID`, or nil when it has none.
    func fcm(_ businessID: Int64) throws -> FCMCredential? {
        guard let stored = try store.credential(businessID: businessID, platform: .fcm) else { return nil }
        let account = try JSON.parse(try sealer.open(stored.sealedKey, purpose: "fcm-account"))
        guard let pem = account["private_key"]?.stringValue else { return nil }
        return FCMCredential(
            projectID: stored.settings["project_id"] ?? "", clientEmail: stored.settings["client_email"] ?? "",
            tokenURI: stored.settings["token_uri"] ?? "https://oauth2.googleapis.com/token",
            privateKeyID: stored.settings["private_key_id"], key: try RSAPrivateKey(pemRepresentation: pem),
            version: stored.updatedAt)
    }
}
