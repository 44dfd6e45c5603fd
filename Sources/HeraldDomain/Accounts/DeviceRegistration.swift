import HeraldModel
import HeraldStore

/// What the app told us about the device it calls from.
public struct DeviceRegistration: Sendable {
    /// `punchh-app-device-id`, or derived.
    public var deviceKey: String
    /// Platform of the token (or of the device when no token is sent).
    public var platform: PushPlatform
    /// `.some(token)` sets it, `.some(nil)` clears it, nil leaves it.
    public var token: String??
    /// The app's User-Agent.
    public var userAgent: String?

    /// A registration.
    public init(deviceKey: String, platform: PushPlatform, token: String??, userAgent: String?) {
        self.deviceKey = deviceKey
        self.platform = platform
        self.token = token
        self.userAgent = userAgent
    }
}

extension Device {
    /// Takes `registration` from `userID` at `now`: a device signed in by someone else moves to them (its token
    /// cleared unless they send one); a token sent is set (returned, to be taken from any other device holding
    /// it), `.some(nil)` clears it, nil leaves it.
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
