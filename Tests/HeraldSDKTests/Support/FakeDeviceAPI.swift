import Foundation
import HeraldCrypto
import HeraldModel
import HeraldSDK

/// The device API's rules in memory, for unit tests: registration hands out credentials, every other call's
/// signature is checked with OpenSSL's HMAC (HeraldCrypto) over the shared canonical string, pull hands each
/// message out once, events are judged by the shared validator, geofences answer 304 to their ETag, and
/// geofence events are answered once per Idempotency-Key. Not a substitute for the live server's end-to-end tests.
final class FakeDeviceAPI: @unchecked Sendable {
    struct Install {
        var installID: String
        var keyID: String
        var secret: String
        var fields: JSON
    }

    private let lock = NSLock()
    private var installs: [String: Install] = [:]  // by key id
    private var nextKey = 0
    /// The server's clock: the test's, moved by `serverOffset`.
    var clock: WallClock
    var serverOffset: Duration = .zero
    var serverTime: Timestamp { clock.now().adding(serverOffset) }
    /// Messages waiting for pull, in order.
    private(set) var pullQueue: [HeraldMessage] = []
    /// Every message the server knows, by id.
    private(set) var messages: [String: HeraldMessage] = [:]
    /// Accepted events, in order.
    private(set) var events: [DeviceEvent] = []
    /// Results the events endpoint gave, in order.
    private(set) var eventResults: [JSON] = []
    /// Statuses to answer the next calls of a path with, before handling normally.
    private var forcedStatuses: [String: [Int]] = [:]
    var geofences: JSON = ["data": [], "meta": ["refresh_seconds": 3600, "refresh_distance_meters": 1000]]
    var geofenceETag = "\"g1\""
    /// What a geofence event answers with, by geofence id.
    var geofenceAnswers: [String: [HeraldMessage]] = [:]
    private var answeredKeys: [String: JSON] = [:]
    private(set) var geofenceEventBodies: [(key: String, body: JSON)] = []
    private(set) var updates: [JSON] = []
    private(set) var segments: [[String]] = []
    private(set) var deletedInstalls: [String] = []
    private(set) var signatureFailures = 0
    /// Answer every call `offline` while true.
    var offline = false
    /// The install id the next registrations answer (as the server does for a known id registered without proof).
    var assignedInstallID: String?
    /// Every registration body, in order.
    private(set) var registrationBodies: [JSON] = []
    /// The business's identity key: what vouches for an external id (`identity_token`).
    static let identityKey = "identity-key-of-the-business"
    /// The user each install belongs to, by install id.
    private(set) var users: [String: String] = [:]
    /// Every identity call: the external id (nil for a logout), in order.
    private(set) var identityCalls: [String?] = []
    /// The raw signing inputs the server checked (METHOD\npath\n…), for golden tests.
    private(set) var checkedMessages: [[UInt8]] = []

    init(start: Timestamp = Timestamp(iso8601: "2025-05-01T09:30:00Z")!) { clock = WallClock { start } }

    /// A transport served by this fake.
    func transport() -> ScriptedTransport { ScriptedTransport { [self] in handle($0) } }

    func queueForPull(_ message: HeraldMessage) {
        lock.withLock {
            pullQueue.append(message)
            messages[message.id] = message
        }
    }

    func store(_ message: HeraldMessage) { lock.withLock { messages[message.id] = message } }

    /// The next `count` calls to `path` answer `status`.
    func force(_ status: Int, times count: Int = 1, on path: String) {
        lock.withLock { forcedStatuses[path, default: []].append(contentsOf: repeatElement(status, count: count)) }
    }

    /// Forgets every credential: the next signed call gets 401.
    func revokeCredentials() { lock.withLock { installs = [:] } }

    func set<T>(_ keyPath: ReferenceWritableKeyPath<FakeDeviceAPI, T>, _ value: T) {
        lock.withLock { self[keyPath: keyPath] = value }
    }

    var registrations: Int { lock.withLock { nextKey } }
    var registered: [JSON] { lock.withLock { registrationBodies } }
    var installCount: Int { lock.withLock { installs.count } }
    var lastInstallFields: JSON? { lock.withLock { installs.values.first?.fields } }
    var eventTypes: [String] { lock.withLock { events.map(\.type.rawValue) } }

    // MARK: - Handling

    /// Answers `request` as the server would.
    func handle(_ request: TransportRequest) -> Result<TransportResponse, TransportError> {
        lock.lock()
        defer { lock.unlock() }
        if offline { return .failure(TransportError(code: .offline, detail: "test")) }
        guard let components = URLComponents(string: request.url) else {
            return .failure(TransportError(code: .invalidURL))
        }
        let path = components.percentEncodedPath
        if var statuses = forcedStatuses[path], !statuses.isEmpty {
            let status = statuses.removeFirst()
            forcedStatuses[path] = statuses
            return .success(
                TransportResponse(status: status, headers: status == 429 ? [("Retry-After", "120")] : [], body: []))
        }
        if request.method == "POST" && path == "/api/v1/installs" && request.header("X-Herald-Key-Id") == nil {
            return .success(register(request))
        }
        // Everything else is signed.
        guard let install = verify(request, path: path, query: components.percentEncodedQuery) else {
            signatureFailures += 1
            return .success(
                .json(
                    401, ["errors": ["signature": ["is wrong or missing"]]], headers: [("Date", httpDate(serverTime))]))
        }
        let body = request.body.isEmpty ? nil : try? JSON.parse(request.body)
        switch (request.method, path) {
        case ("PUT", "/api/v1/installs/current"):
            updates.append(body ?? .null)
            return .success(.json(200, [:]))
        case ("PUT", "/api/v1/device/segments"):
            segments.append(body?["segments"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            return .success(.json(200, [:]))
        case ("DELETE", "/api/v1/device"):
            installs[install.keyID] = nil
            deletedInstalls.append(install.installID)
            return .success(TransportResponse(status: 204))
        case ("PUT", "/api/v1/device/user"):
            let externalID = body?["external_id"]?.stringValue ?? ""
            identityCalls.append(externalID)
            guard body?["identity_token"]?.stringValue == Self.identityToken(for: externalID) else {
                return .success(.json(403, ["errors": ["identity_token": ["does not vouch for external_id"]]]))
            }
            users[install.installID] = externalID
            return .success(.json(200, ["external_id": .string(externalID)]))
        case ("DELETE", "/api/v1/device/user"):
            identityCalls.append(nil)
            users[install.installID] = nil
            return .success(TransportResponse(status: 204))
        case ("POST", "/api/v1/notifications/pull"):
            let handed = pullQueue
            pullQueue = []
            return .success(.json(200, ["data": .array(handed.map(\.json))]))
        case ("POST", "/api/v1/events"):
            return .success(acceptEvents(body))
        case ("GET", "/api/v1/geofences"):
            if request.header("If-None-Match") == geofenceETag { return .success(TransportResponse(status: 304)) }
            return .success(.json(200, geofences, headers: [("ETag", geofenceETag)]))
        case ("POST", "/api/v1/geofence-events"):
            guard let key = request.header("Idempotency-Key"), let body else {
                return .success(.json(400, ["errors": ["idempotency_key": ["is required"]]]))
            }
            geofenceEventBodies.append((key, body))
            if let answered = answeredKeys[key] { return .success(.json(200, answered)) }
            let id = body["geofence_id"]?.stringValue ?? ""
            let answer: JSON = [
                "data": ["notifications": .array((geofenceAnswers[id] ?? []).map(\.json))]
            ]
            answeredKeys[key] = answer
            return .success(.json(200, answer))
        default:
            if request.method == "GET", path.hasPrefix("/api/v1/notifications/") {
                let id = String(path.dropFirst("/api/v1/notifications/".count)).removingPercentEncoding ?? ""
                guard let message = messages[id] else { return .success(.json(404, ["errors": ["id": ["not found"]]])) }
                return .success(.json(200, message.json))
            }
            return .success(.json(404, [:]))
        }
    }

    /// The token the business's backend computes for `externalID`: hex HMAC-SHA256 under the identity key.
    static func identityToken(for externalID: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: Array(externalID.utf8), key: Array(identityKey.utf8)))
    }

    /// The user install `installID` belongs to.
    func user(of installID: String) -> String? { lock.withLock { users[installID] } }

    /// Every identity call so far.
    var identities: [String?] { lock.withLock { identityCalls } }

    private func register(_ request: TransportRequest) -> TransportResponse {
        guard let body = try? JSON.parse(request.body), body["api_key"]?.stringValue?.hasSuffix("_key") == true,
            let sentID = body["install_id"]?.stringValue
        else { return .json(422, ["errors": ["api_key": ["is not a key"]]]) }
        registrationBodies.append(body)
        let installID = assignedInstallID ?? sentID
        nextKey += 1
        // A registration starts a fresh install: it belongs to nobody.
        users[installID] = nil
        let install = Install(installID: installID, keyID: "k\(nextKey)", secret: "secret-\(nextKey)", fields: body)
        installs[install.keyID] = install
        var answer: [(key: String, value: JSON)] = [
            ("credential", ["key_id": .string(install.keyID), "secret": .string(install.secret)]),
            ("config", ["geofencing": true]), ("install_id", .string(installID)),
        ]
        if body["api_key"]?.stringValue?.hasPrefix("sandbox") == true {
            answer.append(("test_device", ["status": "pending", "approval_code": "ABC123"]))
        }
        return .json(201, .object(answer))
    }

    private func verify(_ request: TransportRequest, path: String, query: String?) -> Install? {
        guard let keyID = request.header("X-Herald-Key-Id"), let install = installs[keyID],
            let timestamp = request.header("X-Herald-Timestamp"),
            DeviceRequestSignature.isFresh(timestampHeader: timestamp, now: serverTime),
            let signature = request.header("X-Herald-Signature")
        else { return nil }
        let target = query.map { path + "?" + $0 } ?? path
        let message = DeviceRequestSignature.message(
            method: request.method, target: target, timestamp: timestamp, body: request.body)
        checkedMessages.append(message)
        let expected = Hex.encode(HMACSHA256.authenticationCode(for: message, key: Array(install.secret.utf8)))
        return ConstantTime.equals(Array(expected.utf8), Array(signature.utf8)) ? install : nil
    }

    private func acceptEvents(_ body: JSON?) -> TransportResponse {
        let checks: [DeviceEventCheck]
        do {
            checks = try DeviceEventValidator().checkBatch(body ?? .null) { [messages] id in messages[id]?.survey }
        } catch {
            return .json(422, ["errors": ["events": .array([.string(error.message)])]])
        }
        var results: [JSON] = []
        for check in checks {
            if let event = check.event {
                let duplicate = events.contains { $0.id == event.id }
                if !duplicate { events.append(event) }
                results.append(["id": .string(event.id), "status": duplicate ? "duplicate" : "accepted"])
            } else {
                results.append(["id": JSON(check.id), "status": "rejected", "errors": check.errors])
            }
        }
        eventResults.append(contentsOf: results)
        return .json(202, ["data": ["results": .array(results)]])
    }
}

/// IMF-fixdate.
func httpDate(_ time: Timestamp) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
}
