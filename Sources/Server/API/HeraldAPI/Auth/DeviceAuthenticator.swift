import HeraldCrypto
import HeraldDomain
import HeraldHTTPServer
import HeraldEntities
import HeraldModel

/// Identifies the install behind a device-API call (`/api/v1/…`) by its signature: `X-Herald-Key-Id` names the
/// install's credential, `X-Herald-Timestamp` is within 300 s of the server's clock, and `X-Herald-Signature` is
/// the lowercase hex HMAC-SHA256, keyed with the install's secret, of `DeviceRequestSignature`'s canonical bytes
/// (method, path, sorted query, timestamp, body). Anything else is a 401 `{"errors":{"signature":["…"]}}` saying
/// which, with the server's `Date` so a device whose clock is off can sign with the server's time.
///
/// ```swift
/// let device = try auth.install(request)   // verified, and marked seen
/// ```
final class DeviceAuthenticator: Sendable {
    /// An install with its secret opened.
    struct Caller: Sendable {
        let device: Device
        let secret: [UInt8]
    }

    private let access: AccessService
    private let clock: WallClock
    private let devices: DeviceService
    /// Installs (with their opened secrets) recently looked up by key id, reused while this process has committed
    /// nothing since (a deletion or a new credential is seen at once) and for at most 5 s (another node's).
    private let callers = RecentReads<Caller>(lifetime: .seconds(5))

    private let limits: RateLimits

    init(access: AccessService, clock: WallClock, devices: DeviceService, limits: RateLimits = .unlimited) {
        self.access = access
        self.clock = clock
        self.devices = devices
        self.limits = limits
    }

    /// The install that signed `request`, verified and marked seen; 401 otherwise.
    func install(_ request: HTTPRequest) throws -> Device {
        let device = try verify(request)
        try devices.touch(device)
        return device
    }

    /// The business (and its workspace) whose `api_key` or `sandbox_api_key` a registration presents; 401 on
    /// `api_key` when it is neither of any business.
    func business(apiKey: String) throws -> (Business, Install.Workspace) {
        guard let found = try access.business(apiKeyHash: AccessTokens.hash(apiKey)) else {
            throw HTTPError(.unauthorized, field: "api_key", "is not an api_key or sandbox_api_key of any business")
        }
        return found
    }

    /// The user whose active session `accessToken` (a Punchh API access token) names, if it is one of `business`'s.
    func user(accessToken: String, business: Business) throws -> Int64? {
        guard accessToken.utf8.count <= 512,
            let (session, user) = try access.session(tokenHash: AccessTokens.hash(accessToken)),
            session.businessID == business.id, user.businessID == business.id, session.isActive(at: clock.now())
        else { return nil }
        return user.id
    }

    /// Charges a registration to its client's address (429 past `--install-rate-per-address`): fake installs from
    /// one address cannot flood a business's audiences.
    func chargeRegistration(_ request: HTTPRequest) throws {
        try limits.installsPerAddress.check(request.remoteAddress ?? "-")
    }

    /// True when `request` carries any of the signature headers (a registration signed to rotate its credential).
    static func isSigned(_ request: HTTPRequest) -> Bool {
        [
            DeviceRequestSignature.keyIDHeader, DeviceRequestSignature.timestampHeader,
            DeviceRequestSignature.signatureHeader,
        ].contains { request.header($0) != nil }
    }

    /// The install that signed `request`; 401 saying why when the signature is missing, stale, unknown or wrong.
    func verify(_ request: HTTPRequest) throws -> Device {
        guard let keyID = request.header(DeviceRequestSignature.keyIDHeader), !keyID.isEmpty else {
            throw refusal("missing \(DeviceRequestSignature.keyIDHeader) header")
        }
        guard let timestamp = request.header(DeviceRequestSignature.timestampHeader), !timestamp.isEmpty else {
            throw refusal("missing \(DeviceRequestSignature.timestampHeader) header")
        }
        guard let signature = request.header(DeviceRequestSignature.signatureHeader), !signature.isEmpty else {
            throw refusal("missing \(DeviceRequestSignature.signatureHeader) header")
        }
        guard let seconds = DeviceRequestSignature.seconds(fromTimestampHeader: timestamp) else {
            throw refusal("\(DeviceRequestSignature.timestampHeader) must be Unix seconds (digits only)")
        }
        let now = clock.now()
        guard DeviceRequestSignature.isFresh(timestampHeader: timestamp, now: now) else {
            throw refusal(
                "\(DeviceRequestSignature.timestampHeader) is \(abs(seconds - now.seconds)) s from the server's "
                    + "clock (at most \(DeviceRequestSignature.allowedSkewSeconds) s): sign with the time in Date")
        }
        guard keyID.utf8.count <= 100, let caller = try caller(keyID: keyID) else {
            throw refusal("\(DeviceRequestSignature.keyIDHeader) names no install: register again")
        }
        let message = DeviceRequestSignature.message(
            method: request.method.rawValue, target: request.target, timestamp: timestamp, body: request.body)
        let expected = HMACSHA256.authenticationCode(for: message, key: caller.secret)
        guard signature.utf8.count == 64, let offered = Hex.decode(signature.lowercased()),
            ConstantTime.equals(offered, expected)
        else {
            throw refusal("\(DeviceRequestSignature.signatureHeader) does not match the request")
        }
        // Charged once the signature holds: a key id travels in the clear, so junk naming it must spend nothing.
        try limits.devicePerInstall.check(String(caller.device.id))
        return caller.device
    }

    private func caller(keyID: String) throws -> Caller? {
        try callers.value(for: keyID, changeCount: access.changeCount, clock: clock) {
            try access.install(keyID: keyID).map { Caller(device: $0.device, secret: $0.secret) }
        }
    }

    /// The 401 for a signature refused because of `reason`, with the server's time.
    func refusal(_ reason: String) -> HTTPError {
        HTTPError(
            .unauthorized, field: "signature", reason,
            headers: [("date", HTTPDate.format(secondsSince1970: clock.now().seconds))])
    }
}
