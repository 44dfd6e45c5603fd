import HeraldModel

/// A phone or tablet a user signed in on, and its push token.
public struct Device: Sendable, Equatable {
    /// Store id.
    package var id: Int64
    /// Owning business.
    package var businessID: Int64
    /// The user signed in on it now (nil: an install nobody has signed in on, or imported without a user).
    package var userID: Int64?
    /// The app's `punchh-app-device-id` (an SDK install's `install_id` is the same key: one phone, one device), or
    /// a key derived from the user and platform when the app sends none.
    package var deviceKey: String
    /// APNs (iOS) or FCM (Android).
    package var platform: PushPlatform
    /// The push token; nil once cleared (logout, `""`, or pruned as dead).
    package var token: String?
    /// When the token was last registered; APNs' 410 timestamp is compared with it.
    package var tokenUpdatedAt: Timestamp?
    /// The app's User-Agent.
    package var userAgent: String?
    /// When the device was first seen.
    package var createdAt: Timestamp
    /// When it last changed.
    package var updatedAt: Timestamp
    /// What the SDK registered about it, if it is an install (nil for a device only the Punchh API knows).
    package var install: Install?

    /// A device record.
    package init(
        id: Int64, businessID: Int64, userID: Int64?, deviceKey: String, platform: PushPlatform, token: String?,
        tokenUpdatedAt: Timestamp?, userAgent: String?, createdAt: Timestamp, updatedAt: Timestamp,
        install: Install? = nil
    ) {
        self.install = install
        self.id = id
        self.businessID = businessID
        self.userID = userID
        self.deviceKey = deviceKey
        self.platform = platform
        self.token = token
        self.tokenUpdatedAt = tokenUpdatedAt
        self.userAgent = userAgent
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What an SDK install registers about its device (README: "The device API"), beside the push token the device holds.
package struct Install: Sendable, Equatable {
    /// `live` or `sandbox`: the API key it registered with.
    package var workspace: Workspace
    /// Its credential's public id (`X-Herald-Key-Id`).
    package var keyID: String
    /// Its credential's secret, sealed by the server.
    package var sealedSecret: [UInt8]
    /// `sandbox` or `production` for an APNs token.
    package var apnsEnvironment: String?
    /// The app's version.
    package var appVersion: String?
    /// The OS's version.
    package var osVersion: String?
    /// The device model.
    package var deviceModel: String?
    /// BCP 47 locale (`en-US`).
    package var locale: String?
    /// IANA time zone (`America/New_York`): what local times and quiet hours are in.
    package var timeZone: String?
    /// The SDK's version.
    package var sdkVersion: String?
    /// Whether the user allows notifications.
    package var notificationsEnabled: Bool?
    /// `always`, `when_in_use` or `none`.
    package var locationPermission: String?
    /// A sandbox install's standing as a test device: `pending` until approved, then `approved`.
    package var testStatus: String?
    /// The code an admin approves a sandbox install with.
    package var approvalCode: String?
    /// When it last called.
    package var lastSeenAt: Timestamp?

    /// The workspace an install belongs to.
    package struct Workspace: Sendable, Hashable, CustomStringConvertible {
        /// Its name.
        package let rawValue: String
        /// The workspace named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// The business's real users.
        package static let live = Workspace("live")
        /// Test devices: sandbox campaigns only.
        package static let sandbox = Workspace("sandbox")
        package var description: String { rawValue }
    }

    /// An install's details.
    package init(
        workspace: Workspace, keyID: String, sealedSecret: [UInt8], apnsEnvironment: String? = nil,
        appVersion: String? = nil, osVersion: String? = nil, deviceModel: String? = nil, locale: String? = nil,
        timeZone: String? = nil, sdkVersion: String? = nil, notificationsEnabled: Bool? = nil,
        locationPermission: String? = nil, testStatus: String? = nil, approvalCode: String? = nil,
        lastSeenAt: Timestamp? = nil
    ) {
        self.workspace = workspace
        self.keyID = keyID
        self.sealedSecret = sealedSecret
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timeZone = timeZone
        self.sdkVersion = sdkVersion
        self.notificationsEnabled = notificationsEnabled
        self.locationPermission = locationPermission
        self.testStatus = testStatus
        self.approvalCode = approvalCode
        self.lastSeenAt = lastSeenAt
    }
}
