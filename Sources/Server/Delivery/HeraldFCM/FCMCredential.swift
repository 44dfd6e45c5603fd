import HeraldCrypto
import HeraldModel

/// A business's Google service account, for FCM HTTP v1.
package struct FCMCredential: Sendable {
    /// The Firebase project (`/v1/projects/{project_id}/messages:send`).
    package var projectID: String
    /// The service account (the assertion's `iss`).
    package var clientEmail: String
    /// Google's OAuth2 token endpoint from the key file.
    package var tokenURI: String
    /// The key's id (the assertion's `kid`), when the file has one.
    package var privateKeyID: String?
    /// The RSA key.
    package var key: RSAPrivateKey
    /// When the credential was set.
    package var version: Timestamp

    /// A credential.
    package init(
        projectID: String, clientEmail: String, tokenURI: String, privateKeyID: String?, key: RSAPrivateKey,
        version: Timestamp
    ) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.privateKeyID = privateKeyID
        self.key = key
        self.version = version
    }
}
