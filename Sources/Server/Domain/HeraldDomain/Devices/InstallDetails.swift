import HeraldModel
import HeraldStore

/// What an install tells about itself at registration and in updates (`POST /api/v1/installs`,
/// `PUT /api/v1/installs/current`), already checked by the API. A nil field is left as it is; `pushToken` and
/// `apnsEnvironment` are double optionals: `.some(nil)` clears.
package struct InstallDetails: Sendable, Equatable {
    /// `apns` or `fcm` (`push_token_type`): how its token is pushed.
    package var pushPlatform: PushPlatform
    /// `.some(token)` sets it (taking it from any other device of the business), `.some(nil)` clears it, nil
    /// leaves it.
    package var pushToken: String??
    /// `sandbox` or `production` for an APNs token.
    package var apnsEnvironment: String??
    /// The app's version.
    package var appVersion: String?
    /// The OS's version.
    package var osVersion: String?
    /// The device model.
    package var deviceModel: String?
    /// The locale (`en_US`, `en-US`).
    package var locale: String?
    /// The IANA time zone.
    package var timeZone: String?
    /// The SDK's version.
    package var sdkVersion: String?
    /// Whether the user allows notifications.
    package var notificationsEnabled: Bool?
    /// `always`, `when_in_use` or `none`.
    package var locationPermission: String?
    /// The device's segments, replacing its others; nil leaves them.
    package var segments: [String]?
    /// The app's User-Agent.
    package var userAgent: String?

    /// Details; every field but the push platform defaults to "leave it".
    package init(
        pushPlatform: PushPlatform, pushToken: String?? = nil, apnsEnvironment: String?? = nil,
        appVersion: String? = nil, osVersion: String? = nil, deviceModel: String? = nil, locale: String? = nil,
        timeZone: String? = nil, sdkVersion: String? = nil, notificationsEnabled: Bool? = nil,
        locationPermission: String? = nil, segments: [String]? = nil, userAgent: String? = nil
    ) {
        self.pushPlatform = pushPlatform
        self.pushToken = pushToken
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timeZone = timeZone
        self.sdkVersion = sdkVersion
        self.notificationsEnabled = notificationsEnabled
        self.locationPermission = locationPermission
        self.segments = segments
        self.userAgent = userAgent
    }
}

extension Device {
    /// Takes `details` at `now`; returns the token it now holds when one was sent (to be claimed:
    /// `StoreTransaction.claimPushToken`).
    mutating func apply(_ details: InstallDetails, at now: Timestamp) -> String? {
        var claimed: String?
        switch details.pushToken {
        case .some(.some(let token)):
            // Registered anew each time it is sent: APNs' 410 timestamp is compared with this.
            tokenUpdatedAt = now
            self.token = token
            claimed = token
        case .some(.none):
            if token != nil { tokenUpdatedAt = now }
            token = nil
        case .none:
            // A token of the other service is no token of this one.
            if platform != details.pushPlatform, token != nil {
                token = nil
                tokenUpdatedAt = now
            }
        }
        platform = details.pushPlatform
        if let userAgent = details.userAgent { self.userAgent = userAgent }
        if var install {
            if let environment = details.apnsEnvironment { install.apnsEnvironment = environment }
            if let value = details.appVersion { install.appVersion = value }
            if let value = details.osVersion { install.osVersion = value }
            if let value = details.deviceModel { install.deviceModel = value }
            if let value = details.locale { install.locale = value }
            if let value = details.timeZone { install.timeZone = value }
            if let value = details.sdkVersion { install.sdkVersion = value }
            if let value = details.notificationsEnabled { install.notificationsEnabled = value }
            if let value = details.locationPermission { install.locationPermission = value }
            install.lastSeenAt = now
            self.install = install
        }
        updatedAt = now
        return claimed
    }
}
