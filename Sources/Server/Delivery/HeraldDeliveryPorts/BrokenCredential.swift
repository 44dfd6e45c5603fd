import HeraldModel

/// A business's credential the provider refused (403 InvalidProviderToken, an unknown service account…): its
/// pushes wait until it is replaced.
package struct BrokenCredential: Sendable, Equatable {
    /// Owning business.
    package var businessID: Int64
    /// Which service.
    package var platform: PushPlatform
    /// What the provider said.
    package var reason: String

    /// A broken credential.
    package init(businessID: Int64, platform: PushPlatform, reason: String) {
        self.businessID = businessID
        self.platform = platform
        self.reason = reason
    }
}
