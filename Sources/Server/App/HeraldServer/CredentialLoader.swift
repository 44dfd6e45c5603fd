import HeraldAPNs
import HeraldCrypto
import HeraldDelivery
import HeraldFCM
import HeraldModel
import HeraldDomain
import HeraldStore

/// Opens the sealed push credentials of a business for the providers (which cache what they get).
public struct CredentialLoader: Sendable {
    let store: Store
    let sealer: SecretSealer

    /// A loader reading from `store`, opening with `sealer`.
    package init(store: Store, sealer: SecretSealer) {
        self.store = store
        self.sealer = sealer
    }

    /// The APNs credential of `businessID`, or nil when it has none.
    package func apns(_ businessID: Int64) throws -> APNsCredential? {
        guard let stored = try stored(businessID, .apns) else { return nil }
        return try opening {
            let pem = String(decoding: try sealer.open(stored.sealedKey, purpose: .apnsKey), as: UTF8.self)
            return APNsCredential(
                keyID: stored.settings["key_id"] ?? "", teamID: stored.settings["team_id"] ?? "",
                topic: stored.settings["topic"] ?? "",
                environment: APNsCredential.Environment(stored.settings["environment"] ?? "production"),
                key: try P256PrivateKey(pemRepresentation: pem), version: stored.updatedAt)
        }
    }

    /// The FCM service account of `businessID`, or nil when it has none.
    package func fcm(_ businessID: Int64) throws -> FCMCredential? {
        guard let stored = try stored(businessID, .fcm) else { return nil }
        return try opening {
            let account = try JSON.parse(try sealer.open(stored.sealedKey, purpose: .fcmAccount))
            guard let pem = account["private_key"]?.stringValue else { return nil }
            return FCMCredential(
                projectID: stored.settings["project_id"] ?? "", clientEmail: stored.settings["client_email"] ?? "",
                tokenURI: stored.settings["token_uri"] ?? "https://oauth2.googleapis.com/token",
                privateKeyID: stored.settings["private_key_id"], key: try RSAPrivateKey(pemRepresentation: pem),
                version: stored.updatedAt)
        }
    }

    /// Runs `open` on a stored credential: whatever it throws makes the credential unreadable (not a passing
    /// failure to load it).
    private func opening<Credential>(_ open: () throws -> Credential?) throws -> Credential? {
        do { return try open() } catch { throw CredentialUnreadable(error) }
    }

    private func stored(_ businessID: Int64, _ platform: PushPlatform) throws -> PushCredential? {
        try store.read { try $0.credentials.find(businessID: businessID, platform: platform) }
    }
}
