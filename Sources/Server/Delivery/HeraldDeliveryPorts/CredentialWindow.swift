import HeraldModel

/// A credential's congestion window as a node last held it (`DeliveryEngine`), kept in the database and shared by the
/// nodes: what a node starting to send for the credential, or restarting, starts from.
package struct CredentialWindow: Sendable, Equatable {
    /// The business whose credential it is.
    package var businessID: Int64
    /// Its platform.
    package var platform: PushPlatform
    /// The most pushes in flight it allowed.
    package var limit: Int
    /// Whether a refusal for load set it (the provider's limit, found): a window started from it grows additively,
    /// not by slow start's doubling.
    package var found: Bool
    /// When it was kept.
    package var at: Timestamp

    /// A window.
    package init(businessID: Int64, platform: PushPlatform, limit: Int, found: Bool, at: Timestamp) {
        self.businessID = businessID
        self.platform = platform
        self.limit = limit
        self.found = found
        self.at = at
    }
}
