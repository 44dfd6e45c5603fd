import HeraldModel

/// A business's credential the provider refused (403 InvalidProviderToken, an unknown service account…): its
/// pushes wait until it is replaced.
public struct BrokenCredential: Sendable, Equatable {
    /// Owning business.
    public var businessID: Int64
    /// Which service.
    public var platform: PushPlatform
    /// What the provider said.
    public var reason: String

    /// A broken credential.
    public init(businessID: Int64, platform: PushPlatform, reason: String) {
        self.businessID = businessID
        self.platform = platform
        self.reason = reason
    }
}
