/// What the app tells the SDK at start: its key, where Herald is, and about itself. On iOS,
/// `Herald.start(apiKey:baseURL:)` makes it (the device read from the system, the APNs environment from the app's
/// provisioning profile).
///
/// ```swift
/// let configuration = HeraldConfiguration(
///     apiKey: "live_…", baseURL: "https://push.example.com",
///     device: DeviceInfo(appVersion: "3.2", osVersion: "17.4", deviceModel: "iPhone15,2", locale: "en_US",
///                        timezone: "America/New_York"),
///     apnsEnvironment: "sandbox")
/// ```
public struct HeraldConfiguration: Sendable {
    /// The business's `api_key` (live) or `sandbox_api_key`, from `POST /api/admin/businesses`.
    public var apiKey: String
    /// Herald's base URL, without `/api/v1` (`https://push.example.com`).
    public var baseURL: String
    /// About the app and device, sent at registration and whenever it changes.
    public var device: DeviceInfo
    /// `apns` or `fcm`.
    public var pushTokenType: String
    /// `sandbox` for the APNs tokens of builds signed for development (Xcode's debug builds), `production` for
    /// TestFlight, ad hoc and App Store builds; nil when not APNs. A token sent with the wrong one never gets a push
    /// (APNs answers `BadDeviceToken`): `Herald.start(apiKey:baseURL:)` reads it from the app's provisioning profile.
    public var apnsEnvironment: String?
    /// The SDK's version, as `app.opened` and registration report it.
    public var sdkVersion: String
    /// Tuning, every value defaulted.
    public var options: Options

    /// A configuration; APNs in production unless told otherwise.
    public init(
        apiKey: String, baseURL: String, device: DeviceInfo, pushTokenType: String = "apns",
        apnsEnvironment: String? = "production", sdkVersion: String = HeraldConfiguration.currentSDKVersion,
        options: Options = Options()
    ) {
        self.apiKey = apiKey
        self.baseURL = baseURL
        self.device = device
        self.pushTokenType = pushTokenType
        self.apnsEnvironment = pushTokenType == "apns" ? apnsEnvironment : nil
        self.sdkVersion = sdkVersion
        self.options = options
    }

    /// This SDK's version: the Herald package's (`herald version`), tagged at release.
    public static let currentSDKVersion = "0.1.0"

    /// Limits and timings; the defaults are what the device API and iOS expect.
    public struct Options: Sendable {
        /// How long a request may take.
        public var requestTimeout: Duration = .seconds(30)
        /// Registration details are sent again at least this often, changed or not (stale tokens).
        public var registrationRefreshInterval: Duration = .seconds(24 * 3600)
        /// Message ids remembered so a message is shown once, per install.
        public var rememberedMessages: Int = 200
        /// The most events kept waiting to be sent; the oldest go first.
        public var maximumQueuedEvents: Int = 1000
        /// Events older than this are dropped unsent.
        public var maximumEventAge: Duration = .seconds(72 * 3600)
        /// The most events in one `POST /api/v1/events`.
        public var eventBatchSize: Int = 100
        /// The first retry's delay after a failed send; doubled each time, with jitter.
        public var retryBaseDelay: Duration = .seconds(2)
        /// The longest delay between retries.
        public var retryMaximumDelay: Duration = .seconds(600)
        /// How long after the first event the queue waits to send, so events travel together.
        public var eventSendDelay: Duration = .seconds(1)
        /// The most regions the system watches (20 on iOS), the refresh region included.
        public var maximumMonitoredRegions: Int = 20
        /// The margin a geofence crossing needs, in metres.
        public var geofenceHysteresisMeters: Double = 20
        /// Location fixes less accurate than this don't move geofence states, in metres.
        public var geofenceMaximumAccuracyMeters: Double = 250
        /// The location permission `requestLocationPermission()` asks for: `always` (geofences work with the app
        /// closed), `whenInUse` (only while it is open), or `none` (the SDK never uses location).
        public var locationAuthorization: Permissions.Location = .always

        /// The defaults.
        public init() {}
    }
}

/// About the app and the device it runs on: the registration's fields.
public struct DeviceInfo: Sendable, Hashable {
    /// `ios` or `android`.
    public var platform: String
    /// The app's version.
    public var appVersion: String
    /// The operating system's version.
    public var osVersion: String
    /// The device model (`iPhone15,2`).
    public var deviceModel: String
    /// The user's locale (`en_US`).
    public var locale: String
    /// The IANA time zone (`America/New_York`).
    public var timezone: String

    /// Device details.
    public init(
        platform: String = "ios", appVersion: String, osVersion: String, deviceModel: String, locale: String,
        timezone: String
    ) {
        self.platform = platform
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timezone = timezone
    }
}

/// What the user allowed, sent at registration: `{"notifications":bool,"location":"always"|"when_in_use"|"none"}`.
public struct Permissions: Sendable, Hashable {
    /// Notifications allowed.
    public var notifications: Bool
    /// `always`, `when_in_use` or `none`.
    public var location: Location

    /// Permissions.
    public init(notifications: Bool = false, location: Location = .none) {
        self.notifications = notifications
        self.location = location
    }

    /// Location permission.
    public enum Location: String, Sendable, Hashable {
        /// Always, background included: geofences work.
        case always
        /// Only while the app is in use.
        case whenInUse = "when_in_use"
        /// Not allowed.
        case none
    }
}
