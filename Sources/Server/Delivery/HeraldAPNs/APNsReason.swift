/// The `reason` of an APNs error answer, and what Herald does about it. Unknown reasons are kept as given.
package struct APNsReason: Sendable, Hashable, CustomStringConvertible {
    /// Apple's reason string.
    package let rawValue: String
    /// The reason `rawValue`.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package static let badDeviceToken = APNsReason("BadDeviceToken")
    package static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic")
    package static let unregistered = APNsReason("Unregistered")
    package static let expiredToken = APNsReason("ExpiredToken")
    package static let expiredProviderToken = APNsReason("ExpiredProviderToken")
    package static let invalidProviderToken = APNsReason("InvalidProviderToken")
    package static let missingProviderToken = APNsReason("MissingProviderToken")
    package static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates")
    package static let tooManyRequests = APNsReason("TooManyRequests")
    package static let payloadTooLarge = APNsReason("PayloadTooLarge")

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

    package var description: String { rawValue }
}
