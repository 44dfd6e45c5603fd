/// The `reason` of an APNs error answer, and what Herald does about it. Unknown reasons are kept as given.
public struct APNsReason: Sendable, Hashable, CustomStringConvertible {
    /// Apple's reason string.
    public let rawValue: String
    /// The reason `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let badDeviceToken = APNsReason("BadDeviceToken")
    public static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic")
    public static let unregistered = APNsReason("Unregistered")
    public static let expiredToken = APNsReason("ExpiredToken")
    public static let expiredProviderToken = APNsReason("ExpiredProviderToken")
    public static let invalidProviderToken = APNsReason("InvalidProviderToken")
    public static let missingProviderToken = APNsReason("MissingProviderToken")
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason("TooManyRequests")
    public static let payloadTooLarge = APNsReason("PayloadTooLarge")

    /// The token is dead: remove it. Not `DeviceTokenNotForTopic`: Apple answers that for every token when the
    /// credential's topic is mistyped, and pruning on it would wipe out the business's iPhones over a typo; it fails
    /// the push with its reason instead, like any other 4xx.
    var meansDeadToken: Bool {
        [.badDeviceToken, .unregistered, .expiredToken].contains(self)
    }

    /// The business's credential or app configuration is wrong: its pushes wait until it is replaced.
    var meansBrokenCredential: Bool {
        [
            "InvalidProviderToken", "MissingProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden",
            "UnrelatedKeyIdInToken", "TopicDisallowed", "BadTopic", "MissingTopic",
        ].contains(rawValue)
    }

    /// Apple's trouble, not ours: try again later.
    var meansRetry: Bool {
        [
            "TooManyRequests", "TooManyProviderTokenUpdates", "InternalServerError", "ServiceUnavailable", "Shutdown",
            "IdleTimeout",
        ]
        .contains(rawValue)
    }

    public var description: String { rawValue }
}
