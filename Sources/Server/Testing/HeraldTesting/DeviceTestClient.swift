import HeraldCrypto
import HeraldModel

/// Calls the device API (`/api/v1/…`) as an install does: it registers with a business's `api_key` (or
/// `sandbox_api_key`), keeps the credential it is given, and signs every later call with it — the signature
/// computed here with OpenSSL's HMAC over `DeviceRequestSignature`'s bytes. Each part of a signed call can be
/// overridden, to send what a broken or hostile client would.
///
/// ```swift
/// let phone = herald.deviceClient(installID: "install-1")
/// try phone.register(apiKey: business.apiKey)
/// let pulled = try phone.call("POST", "/api/v1/notifications/pull")
/// ```
public final class DeviceTestClient: @unchecked Sendable {
    /// The connection.
    public let http: TestHTTPClient
    /// The install's id.
    public var installID: String
    /// The credential's key id, once registered.
    public var keyID: String?
    /// The credential's secret, once registered.
    public var secret: String?
    /// What the last registration answered as `test_device`.
    public var testDevice: JSON?
    /// The clock timestamps are signed with.
    public var clock: WallClock

    init(http: TestHTTPClient, installID: String, clock: WallClock) {
        self.http = http
        self.installID = installID
        self.clock = clock
    }

    /// A registration body as the SDK sends it: every field, `fields` replacing or adding some.
    public func registrationBody(apiKey: String, _ fields: [(String, JSON)] = []) -> JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("api_key", .string(apiKey)), ("install_id", .string(installID)),
        ]
        pairs += Self.detailFields()
        for (key, value) in fields {
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                pairs[index].value = value
            } else {
                pairs.append((key, value))
            }
        }
        return .object(pairs)
    }

    /// The fields an install reports about itself (an iPhone in New York, notifications allowed, no token).
    public static func detailFields(pushToken: JSON = .null) -> [(key: String, value: JSON)] {
        [
            ("platform", "ios"), ("push_token", pushToken), ("push_token_type", "apns"),
            ("apns_environment", "production"), ("app_version", "3.2.0"), ("os_version", "17.4"),
            ("device_model", "iPhone15,2"), ("locale", "en_US"), ("timezone", "America/New_York"),
            ("sdk_version", "1.0.0"), ("permissions", ["notifications": true, "location": "when_in_use"]),
        ]
    }

    /// `POST /api/v1/installs` with `body` (unsigned unless `signed`, then with the current credential); a 2xx's
    /// install id, credential and test-device standing are kept.
    @discardableResult
    public func register(body: JSON, signed: Bool = false) throws -> TestHTTPClient.Response {
        let bytes = body.encoded
        let response =
            signed
            ? try call("POST", "/api/v1/installs", body: bytes)
            : try http.request(
                "POST", "/api/v1/installs", headers: [("Content-Type", "application/json")], body: bytes)
        if (200..<300).contains(response.status), let answer = try? JSON.parse(response.body),
            let keyID = answer["credential"]?["key_id"]?.stringValue,
            let secret = answer["credential"]?["secret"]?.stringValue
        {
            self.keyID = keyID
            self.secret = secret
            testDevice = answer["test_device"]
            // The id the server keeps (its own, when the one sent belongs to a device this one could not prove).
            if let installID = answer["install_id"]?.stringValue { self.installID = installID }
        }
        return response
    }

    /// `POST /api/v1/installs` with the SDK's body for `apiKey`, `fields` replacing some.
    @discardableResult
    public func register(apiKey: String, _ fields: [(String, JSON)] = [], signed: Bool = false) throws
        -> TestHTTPClient.Response
    {
        try register(body: registrationBody(apiKey: apiKey, fields), signed: signed)
    }

    /// The lowercase hex signature of a request, keyed with `secret`.
    public static func signature(method: String, target: String, timestamp: String, body: [UInt8], secret: String)
        -> String
    {
        let message = DeviceRequestSignature.message(method: method, target: target, timestamp: timestamp, body: body)
        return Hex.encode(HMACSHA256.authenticationCode(for: message, key: Array(secret.utf8)))
    }

    /// A signed call. Nil overrides use the credential and the clock; a header given as "" is left out.
    /// `signedTarget` and `signedBody` sign something other than what is sent (a replay elsewhere, a tampered body).
    public func call(
        _ method: String, _ target: String, body: [UInt8] = [], keyID: String? = nil, timestamp: String? = nil,
        signature: String? = nil, signedTarget: String? = nil, signedBody: [UInt8]? = nil, secret: String? = nil,
        headers: [(String, String)] = []
    ) throws -> TestHTTPClient.Response {
        let time = timestamp ?? String(clock.now().seconds)
        let key = keyID ?? self.keyID ?? ""
        let signed =
            signature
            ?? Self.signature(
                method: method, target: signedTarget ?? target, timestamp: time, body: signedBody ?? body,
                secret: secret ?? self.secret ?? "")
        var all = headers
        if !key.isEmpty { all.append((DeviceRequestSignature.keyIDHeader, key)) }
        if !time.isEmpty { all.append((DeviceRequestSignature.timestampHeader, time)) }
        if !signed.isEmpty { all.append((DeviceRequestSignature.signatureHeader, signed)) }
        all.append(("User-Agent", "HeraldSDK/1.0.0"))
        if !body.isEmpty { all.append(("Content-Type", "application/json")) }
        return try http.request(method, target, headers: all, body: body)
    }

    /// A signed call with a JSON body.
    public func call(_ method: String, _ target: String, json: JSON) throws -> TestHTTPClient.Response {
        try call(method, target, body: json.encoded)
    }
}

extension LiveHerald {
    /// A device-API client for install `installID` on a new connection; it signs with `clock` (the system's by
    /// default: give it the clock Herald runs on when a test moves time).
    public func deviceClient(installID: String = UUIDString.random(), clock: WallClock = .system) -> DeviceTestClient {
        DeviceTestClient(http: client(), installID: installID, clock: clock)
    }
}
