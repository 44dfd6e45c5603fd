import HeraldCrypto
import HeraldModel
import HeraldStore

/// Who is calling: what the API's authenticators look a caller up by — an app's business by its client id, a POS
/// key's hash, a device-API key's hash, a session by its token's hash, an install by its key id — with the secret the
/// caller's signature is checked against opened; and the credential a new install signs with, its secret sealed.
/// The HTTP layer checks signatures and tokens; the store and the sealer are only here.
///
/// ```swift
/// guard let (business, secret) = try access.client(clientID: clientID) else { … }   // 401
/// ```
package struct AccessService: Sendable {
    let store: Store
    let sealer: SecretSealer

    /// Lookups in `store`, secrets opened with `sealer`.
    package init(store: Store, sealer: SecretSealer) {
        self.store = store
        self.sealer = sealer
    }

    /// How many changes this process has committed or heard of from another node: a caller looked up before is still
    /// good to reuse while this stays the same.
    package var changeCount: UInt64 { store.changeCount }

    /// The business whose public client id is `clientID`, with its signing secret opened.
    package func client(clientID: String) throws -> (business: Business, secret: [UInt8])? {
        guard let business = try store.read({ try $0.businesses.find(clientID: clientID) }) else { return nil }
        return (business, try sealer.open(business.sealedSecret, purpose: .businessSecret))
    }

    /// The business whose POS key hashes to `posKeyHash`.
    package func business(posKeyHash: String) throws -> Business? {
        try store.read { try $0.businesses.find(posKeyHash: posKeyHash) }
    }

    /// The business whose `api_key` (live) or `sandbox_api_key` (sandbox) hashes to `apiKeyHash`, and which it is.
    package func business(apiKeyHash: String) throws -> (business: Business, workspace: Install.Workspace)? {
        try store.read { try $0.businesses.find(apiKeyHash: apiKeyHash) }
    }

    /// The session whose access token hashes to `tokenHash`, with its user (whatever its state: the caller checks).
    package func session(tokenHash: String) throws -> (session: Session, user: User)? {
        try store.read { try $0.sessions.findWithUser(tokenHash: tokenHash) }
    }

    /// The install whose credential is `keyID`, with its signing secret opened.
    package func install(keyID: String) throws -> (device: Device, secret: [UInt8])? {
        guard let device = try store.read({ try $0.devices.find(keyID: keyID) }), let install = device.install else {
            return nil
        }
        return (device, try sealer.open(install.sealedSecret, purpose: .installSecret))
    }

    /// A new install credential: a key id and a secret (shown once), the secret sealed for the store.
    package func issueInstallCredential() throws -> (credential: IssuedCredential, secret: String) {
        let keyID = "hk_" + Hex.encode(SecureRandom.bytes(count: 16))
        let secret = Base64URL.encode(SecureRandom.bytes(count: 32))
        let sealed = try sealer.seal(Array(secret.utf8), purpose: .installSecret)
        return (IssuedCredential(keyID: keyID, sealedSecret: sealed), secret)
    }
}
