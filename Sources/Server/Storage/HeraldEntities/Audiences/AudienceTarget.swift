import HeraldModel

/// One device an audience reaches, with what a campaign's fan-out decides by: whether it can be pushed to, the
/// time zone its local times and quiet hours are in, whether the SDK runs on it.
package struct AudienceTarget: Sendable, Equatable {
    /// The device.
    package var deviceID: Int64
    /// Its user, if it has one.
    package var userID: Int64?
    /// The push service it is reached through.
    package var platform: PushPlatform
    /// Whether it has a push token now.
    package var hasToken: Bool
    /// Its IANA time zone, as its SDK reported it (nil when it never did).
    package var timeZone: String?
    /// Whether it is an SDK install (it can pull and reports events), not only a device the Punchh API knows.
    package var isInstall: Bool

    /// A target.
    package init(
        deviceID: Int64, userID: Int64?, platform: PushPlatform, hasToken: Bool, timeZone: String?, isInstall: Bool
    ) {
        self.deviceID = deviceID
        self.userID = userID
        self.platform = platform
        self.hasToken = hasToken
        self.timeZone = timeZone
        self.isInstall = isInstall
    }
}
