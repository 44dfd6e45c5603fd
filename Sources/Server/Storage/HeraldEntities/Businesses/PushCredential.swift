import HeraldModel

/// A business's credential for one push service. The key material is sealed by the server.
package struct PushCredential: Sendable, Equatable {
    /// Owning business.
    package var businessID: Int64
    /// Which service.
    package var platform: PushPlatform
    /// Non-secret settings shown to operators: APNs key id, team id, topic, environment; FCM project id, client email.
    package var settings: [String: String]
    /// The sealed secret: the .p8 text or the service-account JSON.
    package var sealedKey: [UInt8]
    /// Set when the provider rejected the credential itself (403 InvalidProviderToken, …); nil when healthy.
    package var brokenReason: String?
    /// When it was last set.
    package var updatedAt: Timestamp

    /// A credential record.
    package init(
        businessID: Int64, platform: PushPlatform, settings: [String: String], sealedKey: [UInt8],
        brokenReason: String? = nil, updatedAt: Timestamp
    ) {
        self.businessID = businessID
        self.platform = platform
        self.settings = settings
        self.sealedKey = sealedKey
        self.brokenReason = brokenReason
        self.updatedAt = updatedAt
    }
}
