import HeraldModel

/// The install's identity on the device API: registers once, keeps the credential, signs every call, and
/// registers again when the server stops accepting the signature (401) or when the registration's details change.
///
/// Nothing is assumed while storage is unavailable: an app pre-warmed before the first unlock gets
/// `storageUnavailable` errors rather than a new install id, and the same identity once the device unlocks.
///
/// The record, credential included, is kept in `secureStorage` (the Keychain on iOS) when there is one, moved there
/// from the plain storage an earlier version used (`MovingStoredValue`).
actor InstallSession {
    private let configuration: HeraldConfiguration
    private let transport: any HTTPTransport
    let store: MovingStoredValue
    private let clock: WallClock
    private let random: RandomSource
    let diagnostics: @Sendable (HeraldDiagnostic) -> Void
    var record: InstallRecord?
    private var registration: Task<Credential, any Error>?
    /// The server's clock minus the device's, in seconds, once a 401 showed they differ.
    private(set) var clockOffsetSeconds: Int64 = 0
    var stopped = false

    init(
        configuration: HeraldConfiguration, transport: any HTTPTransport, storage: any PersistentStorage,
        secureStorage: (any PersistentStorage)? = nil, clock: WallClock, random: RandomSource,
        diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void
    ) {
        self.configuration = configuration
        self.transport = transport
        store = MovingStoredValue(
            primary: secureStorage ?? storage, legacy: secureStorage == nil ? nil : storage, key: "install")
        self.clock = clock
        self.random = random
        self.diagnostics = diagnostics
    }

    // MARK: - Identity

    /// The stored record, read once storage is available; a new install id only when storage says nothing is
    /// stored.
    func loadedRecord() throws(HeraldError) -> InstallRecord {
        if let record { return record }
        let stored: JSON?
        do {
            stored = try store.load()
        } catch {
            throw HeraldError(
                code: error.code == .unavailable ? .storageUnavailable : .storage, detail: error.description)
        }
        let digest = InstallBody.keyDigest(configuration.apiKey)
        var loaded =
            stored.flatMap(InstallRecord.init(json:)) ?? InstallRecord(installID: random.uuid(), apiKeyDigest: digest)
        if loaded.apiKeyDigest != digest {
            // Another key (live ↔ sandbox): the same install registers again with it.
            loaded.apiKeyDigest = digest
            loaded.credential = nil
            loaded.testDevice = nil
            loaded.lastSentDigest = nil
        }
        if stored == nil || loaded != stored.flatMap(InstallRecord.init(json:)) { try save(loaded) }
        record = loaded
        return loaded
    }

    /// The install id (`install_id`).
    func installID() throws(HeraldError) -> String { try loadedRecord().installID }

    /// The sandbox standing, when registered with a sandbox key.
    func testDevice() -> TestDevice? { record?.testDevice }

    /// The push token as last set.
    func pushToken() -> String? { record?.pushToken }

    /// True once registered.
    func isRegistered() -> Bool { record?.credential != nil }

    /// What the user allowed, as last set.
    func permissions() throws(HeraldError) -> Permissions { try loadedRecord().permissions }

    /// The user the install belongs to, as last identified.
    func externalID() -> String? { record?.externalID }

    private func save(_ value: InstallRecord) throws(HeraldError) {
        do {
            try store.save(value.json)
        } catch {
            throw HeraldError(
                code: error.code == .unavailable ? .storageUnavailable : .storage, detail: error.description)
        }
        record = value
    }

    func update(_ change: (inout InstallRecord) -> Void) throws(HeraldError) {
        var value = try loadedRecord()
        change(&value)
        try save(value)
    }

    // MARK: - Registration

    /// The credential, registering first when there is none.
    func credential() async throws(HeraldError) -> Credential {
        guard !stopped else { throw HeraldError(code: .stopped) }
        if let credential = try loadedRecord().credential { return credential }
        return try await register(replacing: nil)
    }

    /// Registers (unsigned `POST /api/v1/installs`) unless someone already replaced `old`: concurrent callers that
    /// all saw the same 401 share one registration.
    func register(replacing old: Credential?) async throws(HeraldError) -> Credential {
        guard !stopped else { throw HeraldError(code: .stopped) }
        if let current = try loadedRecord().credential, current != old { return current }
        if let registration { return try await Self.value(of: registration) }
        let task = Task { () async throws -> Credential in try await self.performRegistration() }
        registration = task
        defer { registration = nil }
        return try await Self.value(of: task)
    }

    private static func value(of task: Task<Credential, any Error>) async throws(HeraldError) -> Credential {
        do {
            return try await task.value
        } catch let error as HeraldError {
            throw error
        } catch {
            throw HeraldError(code: .offline, detail: "\(error)")
        }
    }

    private func performRegistration() async throws(HeraldError) -> Credential {
        let current = try loadedRecord()
        let body = InstallBody.registration(current, configuration: configuration)
        let response = try await transmit(.register(body), signedWith: nil)
        guard response.isSuccess else {
            let error = Self.error(from: response)
            if error.code == .rejected || error.code == .unauthorized {
                diagnostics(
                    HeraldDiagnostic(
                        code: .registrationFailed, message: "POST /api/v1/installs answered \(response.status)"))
            }
            throw error
        }
        guard let answer = try? JSON.parse(response.body), let credential = Credential(json: answer["credential"])
        else {
            diagnostics(HeraldDiagnostic(code: .malformedResponse, message: "registration answered no credential"))
            throw HeraldError(code: .malformedResponse, status: response.status, detail: "no credential")
        }
        try update { record in
            // Without proof of the user a known id belongs to, the server starts the install under an id of its own.
            if let installID = answer["install_id"]?.stringValue, !installID.isEmpty { record.installID = installID }
            record.credential = credential
            record.config = answer["config"]
            record.testDevice = answer["test_device"].flatMap(TestDevice.init(json:))
            // A registration starts a fresh install record on the server, which belongs to nobody yet.
            record.identitySent = record.externalID == nil
            record.lastSentDigest = InstallBody.digest(record, configuration: configuration)
            record.lastSentAt = clock.now()
        }
        return credential
    }

    /// Sends the registration's details (`PUT /api/v1/installs/current`) when they changed since last sent, when
    /// they were last sent longer ago than the refresh interval, or when `force`d; registers first when there is
    /// no credential yet (registration sends them all). The user the install belongs to is sent first when it
    /// hasn't been yet, and the details then follow at once: an install the server has just made a user's takes its
    /// push token from the phone's other device records only then (an install of nobody takes none from a user's).
    func synchronize(force: Bool = false) async throws(HeraldError) {
        var sentAll = false
        if try loadedRecord().credential == nil {
            _ = try await credential()
            sentAll = true
        }
        // An identity refused (or not sent) doesn't hold the details back: its error is thrown after them.
        var identityError: HeraldError?
        do { try await sendIdentity() } catch { identityError = error }
        let current = try loadedRecord()
        let digest = InstallBody.digest(current, configuration: configuration)
        let due =
            current.lastSentAt.map { clock.now().since($0) >= configuration.options.registrationRefreshInterval }
            ?? true
        guard (force && !sentAll) || due || digest != current.lastSentDigest else {
            if let identityError { throw identityError }
            return
        }
        let response = try await send(.update(InstallBody.update(current, configuration: configuration)))
        guard response.isSuccess else { throw Self.error(from: response) }
        let sentAt = clock.now()
        try update { record in
            // What was sent, even if the record changed meanwhile (then the next call sends again).
            record.lastSentDigest = digest
            record.lastSentAt = sentAt
        }
        if let identityError { throw identityError }
    }

    /// Keeps a new push token (nil clears it) and sends it if it changed.
    func setPushToken(_ token: String?) async throws(HeraldError) {
        let changed = try loadedRecord().pushToken != token
        if changed { try update { $0.pushToken = token } }
        try await synchronize()
    }

    /// Keeps new permissions and, `send`, sends them if they changed.
    func setPermissions(_ permissions: Permissions, send: Bool = true) async throws(HeraldError) {
        if try loadedRecord().permissions != permissions { try update { $0.permissions = permissions } }
        if send { try await synchronize() }
    }

    /// The longest segment, in characters, and the most segments.
    static let segmentLength = 1...255
    static let maximumSegments = 100

    /// Replaces the device's segments (`PUT /api/v1/device/segments`): at most 100, each 1 to 255 characters.
    func setSegments(_ segments: [String]) async throws(HeraldError) {
        guard segments.count <= Self.maximumSegments else {
            throw HeraldError(code: .invalidArgument, detail: "at most \(Self.maximumSegments) segments")
        }
        guard segments.allSatisfy({ Self.segmentLength.contains($0.count) }) else {
            throw HeraldError(code: .invalidArgument, detail: "segments must be 1 to 255 characters")
        }
        try update { $0.segments = segments }
        let response = try await send(.segments(segments))
        guard response.isSuccess else { throw Self.error(from: response) }
    }

    /// Logging out the old way: forgets the user, the push token and the segments, and tells the server
    /// (`push_token: null`, `DELETE /api/v1/device/user`).
    func logOut() async throws(HeraldError) {
        try update { record in
            record.pushToken = nil
            record.segments = []
            if record.externalID != nil {
                record.externalID = nil
                record.identityToken = nil
                record.identitySent = false
            }
        }
        guard try loadedRecord().credential != nil else { return }
        try await synchronize(force: true)
    }

    // MARK: - Sending

    /// Sends `request` signed with the credential (registering first if needed). On a 401 it signs again with the
    /// server's time when the `Date` header shows the clocks apart, else registers again; then retries once.
    /// Answers every response but a second 401 (`unauthorized`).
    func send(_ request: DeviceRequest) async throws(HeraldError) -> TransportResponse {
        var credential = try await credential()
        var response = try await transmit(request, signedWith: credential)
        guard response.status == 401 else { return response }
        if let serverSeconds = response.header("Date").flatMap(HTTPDate.parse) {
            let skew = serverSeconds - clock.now().seconds
            if abs(skew - clockOffsetSeconds) > DeviceRequestSignature.allowedSkewSeconds / 2 {
                clockOffsetSeconds = skew
                diagnostics(
                    HeraldDiagnostic(code: .clockSkew, message: "the device's clock is \(-skew) s off the server's"))
                response = try await transmit(request, signedWith: credential)
                guard response.status == 401 else { return response }
            }
        }
        credential = try await register(replacing: credential)
        response = try await transmit(request, signedWith: credential)
        guard response.status != 401 else {
            throw HeraldError(code: .unauthorized, status: 401, detail: "\(request.method) \(request.path)")
        }
        return response
    }

    func transmit(_ request: DeviceRequest, signedWith credential: Credential?) async throws(HeraldError)
        -> TransportResponse
    {
        guard let base = BaseURL(configuration.baseURL) else {
            throw HeraldError(code: .invalidURL, detail: "the base URL must be http(s)://host[:port][/path]")
        }
        let path = base.pathPrefix + request.path
        var url = base.origin + path
        if !request.query.isEmpty { url += "?" + DeviceRequestSignature.queryString(request.query) }
        let body = request.bodyBytes
        var headers: [(name: String, value: String)] = [
            ("Accept", "application/json"), ("User-Agent", "HeraldSDK/\(configuration.sdkVersion)"),
        ]
        if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        headers.append(contentsOf: request.headers)
        if let credential {
            let time = clock.now().seconds + clockOffsetSeconds
            headers.append(
                contentsOf: RequestSigner(credential: credential).headers(
                    method: request.method, path: path, query: request.query, body: body, unixTime: time))
        }
        do {
            return try await transport.send(
                TransportRequest(
                    method: request.method, url: url, headers: headers, body: body,
                    timeout: configuration.options.requestTimeout))
        } catch {
            switch error.code {
            case .timedOut: throw HeraldError(code: .timedOut, detail: error.description)
            case .invalidURL: throw HeraldError(code: .invalidURL, detail: error.description)
            default: throw HeraldError(code: .offline, detail: error.description)
            }
        }
    }

    /// The error a non-2xx response stands for.
    static func error(from response: TransportResponse) -> HeraldError {
        switch response.status {
        case 429: return HeraldError(code: .rateLimited, status: 429)
        case 401: return HeraldError(code: .unauthorized, status: 401)
        case 408, 500...599: return HeraldError(code: .server, status: response.status)
        default: return HeraldError(code: .rejected, status: response.status)
        }
    }
}

/// A base URL split for requests and signatures: `https://host:port` and the path before `/api/v1`.
struct BaseURL: Sendable, Equatable {
    /// `scheme://host[:port]`.
    var origin: String
    /// The path prefix without a trailing slash (`""` or `/herald`).
    var pathPrefix: String

    init?(_ text: String) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"),
            !text.contains("?"), !text.contains("#"),
            !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        let afterScheme = text.range(of: "://")!.upperBound
        let rest = text[afterScheme...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard slash > rest.startIndex else { return nil }
        origin = String(text[..<slash])
        var prefix = String(rest[slash...])
        while prefix.hasSuffix("/") { prefix.removeLast() }
        pathPrefix = prefix
    }
}
