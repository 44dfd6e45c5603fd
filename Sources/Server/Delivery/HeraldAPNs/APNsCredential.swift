import HeraldCrypto
import HeraldModel

/// A business's token-auth credential for APNs: the .p8 key and what identifies it.
package struct APNsCredential: Sendable {
    /// One of Apple's two hosts: `sandbox` (development builds' tokens) or `production` (TestFlight and App Store
    /// builds'). A credential's is the host of the devices that do not say theirs (`APNsHosts`).
    package struct Environment: Sendable, Hashable {
        /// `sandbox` or `production`.
        package let rawValue: String
        /// The environment named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// Development builds.
        package static let sandbox = Environment("sandbox")
        /// App Store and TestFlight builds.
        package static let production = Environment("production")

        /// Apple's host for this environment.
        package var baseURL: String {
            self == .sandbox ? "https://api.sandbox.push.apple.com" : "https://api.push.apple.com"
        }
    }

    /// The key's 10-character id (the JWT's `kid`).
    package var keyID: String
    /// The team's 10-character id (the JWT's `iss`).
    package var teamID: String
    /// The app's bundle id (`apns-topic`).
    package var topic: String
    /// Sandbox or production.
    package var environment: Environment
    /// The .p8 key.
    package var key: P256PrivateKey
    /// When the credential was set; a newer one replaces cached tokens.
    package var version: Timestamp

    /// Names the key provider tokens are signed with, whichever business holds it: the lowercase hex SHA-256 of the
    /// team, the key id and the public key. Businesses holding one key share its token; another .p8 under the same
    /// key id has another fingerprint, so it never reads nor sends with that token.
    package var keyFingerprint: String {
        Hex.encode(SHA256.hash(Array("\(teamID)\n\(keyID)\n\(key.publicKey.pemRepresentation)".utf8)))
    }

    /// A credential.
    package init(
        keyID: String, teamID: String, topic: String, environment: Environment, key: P256PrivateKey, version: Timestamp
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        self.key = key
        self.version = version
    }
}
