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

    /// Whose window it is.
    package var key: CredentialKey { CredentialKey(businessID: businessID, platform: platform) }

    /// A window.
    package init(businessID: Int64, platform: PushPlatform, limit: Int, found: Bool, at: Timestamp) {
        self.businessID = businessID
        self.platform = platform
        self.limit = limit
        self.found = found
        self.at = at
    }
}

/// A business's credential for one platform: what a congestion window (and the engine's other state of a credential)
/// belongs to. A value, not a formatted string: every send and answer looks one up.
package struct CredentialKey: Hashable, Sendable {
    package let businessID: Int64
    package let platform: PushPlatform

    /// The credential of `businessID` for `platform`.
    package init(businessID: Int64, platform: PushPlatform) {
        self.businessID = businessID
        self.platform = platform
    }
}
