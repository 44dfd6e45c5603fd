import HeraldModel
import HeraldStore

/// What the app told us about the device it calls from.
package struct DeviceRegistration: Sendable {
    /// `punchh-app-device-id`, or derived.
    package var deviceKey: String
    /// Platform of the token (or of the device when no token is sent).
    package var platform: PushPlatform
    /// `.some(token)` sets it, `.some(nil)` clears it, nil leaves it.
    package var token: String??
    /// The app's User-Agent.
    package var userAgent: String?
    /// The device of the session making the call, if it is signed in and its session named one: proof that
    /// the caller held that device before.
    package var sessionDeviceID: Int64?

    /// A registration.
    package init(
        deviceKey: String, platform: PushPlatform, token: String??, userAgent: String?, sessionDeviceID: Int64? = nil
    ) {
        self.deviceKey = deviceKey
        self.platform = platform
        self.token = token
        self.userAgent = userAgent
        self.sessionDeviceID = sessionDeviceID
    }

    /// Whether this registration may make `device`, which belongs to another user or to nobody, its caller's. An SDK
    /// install never: it changes hands only through a request signed with its own credential (`Herald.identify`,
    /// `DeviceIdentityService`), so no `punchh-app-device-id` naming it — nor an access token got that way, which the
    /// device API would take as proof of the install's user — moves it. Another device only with proof of holding
    /// it: the push token it has now, or a session that was signed in on it; a device of nobody (a direct push's) is
    /// anyone's. Knowing a device id is no proof (it is in logs, support tickets, analytics): without proof the
    /// caller gets a device record of their own.
    func mayTakeOver(_ device: Device) -> Bool {
        if device.install != nil { return false }
        guard device.userID != nil else { return true }
        if let sessionDeviceID, sessionDeviceID == device.id { return true }
        if case .some(.some(let token)) = token, let held = device.token, held == token { return true }
        return false
    }

    /// The key of the caller's own record for a device id that belongs to another user (or is an install).
    static func ownKey(_ key: String, userID: Int64) -> String { key + "|user:\(userID)" }

    /// Whether `key` has a form the server gives records of its own — a user's own record for another's device id
    /// (`ownKey`), a user's record for tokens sent without a device id (`userKey`), a direct push's device
    /// (`directKey`), an imported device without an install id (`token:…`) — under which no SDK install is made: an
    /// install waiting there would be given that user, or that token, when the server came to make its record.
    static func isServerKey(_ key: String) -> Bool {
        key.contains("|user:") || key.hasPrefix("user:") || key.hasPrefix("direct:") || key.hasPrefix("token:")
    }

    /// The key of the device a direct push to `token` makes when no device holds it.
    static func directKey(_ platform: PushPlatform, token: String) -> String { "direct:\(platform.rawValue):\(token)" }

    /// The key of the device a user registers a token for without naming one: one per user and platform.
    static func userKey(userID: Int64, platform: PushPlatform) -> String { "user:\(userID):\(platform)" }

    /// Whether `key` is one of `userID`'s own keys (`userKey`).
    static func isUserKey(_ key: String, userID: Int64) -> Bool { key.hasPrefix("user:\(userID):") }
}

extension Device {
    /// Takes `registration` from `userID` at `now`: a device signed in by someone else moves to them (its token
    /// cleared unless they send one); a token sent is set (returned, to be claimed:
    /// `StoreTransaction.claimPushToken`), `.some(nil)` clears it, nil leaves it.
    mutating func register(_ registration: DeviceRegistration, by userID: Int64, at now: Timestamp) -> String? {
        if self.userID != userID {
            self.userID = userID
            if registration.token == nil { token = nil }
        }
        if let userAgent = registration.userAgent { self.userAgent = userAgent }
        var claimed: String?
        switch registration.token {
        case .some(.some(let newToken)):
            tokenUpdatedAt = now
            platform = registration.platform
            token = newToken
            claimed = newToken
        case .some(.none):
            token = nil
            tokenUpdatedAt = now
        case .none:
            break
        }
        updatedAt = now
        return claimed
    }
}
