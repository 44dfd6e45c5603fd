import HeraldCrypto
import HeraldDelivery
import HeraldHTTP
import HeraldModel
import HeraldObservability
import Synchronization

/// Delivers to FCM HTTP v1: an OAuth2 access token from the service account (RS256 assertion to the key
/// file's `token_uri`, cached until shortly before it expires, fetched once for all waiting sends), then
/// `POST /v1/projects/{project_id}/messages:send`.
public final class FCMProvider: PushProvider {
    /// Settings.
    public struct Configuration: Sendable {
        /// Replaces `https://fcm.googleapis.com` (HERALD_FCM_URL).
        public var baseURLOverride: String?
        /// How long one request may take.
        public var requestTimeout: Duration = .seconds(30)
        /// Access tokens are renewed this long before they expire.
        public var refreshMargin: Duration = .seconds(300)

        /// Defaults.
        public init(baseURLOverride: String? = nil) { self.baseURLOverride = baseURLOverride }
    }

    /// The OAuth2 scope FCM sends need.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private enum TokenState {
        case none
        case fetching(waiters: [@Sendable (Result<String, PushResult.Failure>) -> Void])
        /// A token in use. From `refreshAt` one fetch of its successor runs (`renewing`) while sends go on using it
        /// until `expiresAt`: a refresh never holds a send back.
        case ready(token: String, refreshAt: Timestamp, expiresAt: Timestamp, renewing: Bool)
    }

    private struct Entry {
        var credential: FCMCredential
        /// Which loading of the credential this is: a fetch started for an earlier one must not touch it.
        let epoch: Int
        var token: TokenState = .none
    }

    public let platform = PushPlatform.fcm
    private let client: HTTP2Client
    private let loadCredential: @Sendable (Int64) throws -> FCMCredential?
    private let clock: WallClock
    private let configuration: Configuration
    private let logger: Logger
    private let transportWarnings: TransportWarnings
    private let entries = Mutex<[Int64: Entry]>([:])
    private let epochs = Atomic<Int>(0)

    /// A provider sending through `client`; `credential` loads (and opens) a business's service account.
    public init(
        client: HTTP2Client, credential: @escaping @Sendable (Int64) throws -> FCMCredential?, clock: WallClock,
        configuration: Configuration = .init(), logger: Logger
    ) {
        self.client = client
        self.loadCredential = credential
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        transportWarnings = TransportWarnings(logger: logger, clock: clock)
    }

    public func credentialChanged(businessID: Int64) {
        let removed = entries.withLock { $0.removeValue(forKey: businessID) }
        // Sends waiting on a fetch for the old credential are answered now (to be retried), not left hanging.
        if case .fetching(let waiters) = removed?.token {
            for waiter in waiters {
                waiter(.failure(.init(.retryable(reason: "credential replaced", retryAfter: nil))))
            }
        }
    }

    public func shutdown() { client.shutdown() }

    public func send(_ push: consuming OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void) {
        send(push, retriedAuthentication: false, completion: completion)
    }

    private func send(
        _ push: OutgoingPush, retriedAuthentication: Bool, completion: @escaping @Sendable (PushResult) -> Void
    ) {
        withAccessToken(push.businessID) { [self] result in
            switch result {
            case .failure(let failure):
                completion(failure.result)
            case .success(let token):
                guard let credential = entries.withLock({ $0[push.businessID]?.credential }) else {
                    return completion(.retryable(reason: "credential replaced while sending", retryAfter: nil))
                }
                let base = configuration.baseURLOverride ?? "https://fcm.googleapis.com"
                let request = HTTPClientRequest(
                    method: "POST",
                    url: (base.hasSuffix("/") ? String(base.dropLast()) : base)
                        + "/v1/projects/\(credential.projectID)/messages:send",
                    headers: [
                        ("authorization", "Bearer " + token), ("content-type", "application/json; charset=utf-8"),
                    ],
                    body: push.fcmBody, timeout: configuration.requestTimeout)
                client.execute(request) { [self] result in
                    switch result {
                    case .failure(let error):
                        transportWarnings.failed(
                            provider: "FCM", businessID: push.businessID, url: base, reason: "\(error.code)")
                        completion(.transportFailure(error))
                    case .success(let response):
                        let outcome = Self.interpret(response)
                        if response.status == 401, !retriedAuthentication, case .credentialRejected = outcome {
                            // The access token was refused (expired early, revoked): fetch a new one and resend once.
                            invalidate(push.businessID, token: token)
                            send(push, retriedAuthentication: true, completion: completion)
                        } else {
                            if case .credentialRejected = outcome {
                                forgetIfReplaced(push.businessID, version: credential.version)
                            }
                            completion(outcome.sent(with: credential.version))
                        }
                    }
                }
            }
        }
    }

    /// Google refused the service account of `version`: if the stored one is newer (replaced on another node),
    /// forget the cached one so the next push uses the new one.
    private func forgetIfReplaced(_ businessID: Int64, version: Timestamp) {
        guard let stored = try? loadCredential(businessID), stored.version > version,
            entries.withLock({ $0[businessID].map { $0.credential.version <= version } ?? false })
        else { return }
        credentialChanged(businessID: businessID)
    }

    // MARK: - Access tokens

    private func invalidate(_ businessID: Int64, token: String) {
        entries.withLock { entries in
            if case .ready(let current, _, _, _) = entries[businessID]?.token, current == token {
                entries[businessID]!.token = .none
            }
        }
    }

    /// Calls `body` with a valid access token, fetching one (once for all concurrent callers) when needed.
    private func withAccessToken(
        _ businessID: Int64, _ body: @escaping @Sendable (Result<String, PushResult.Failure>) -> Void
    ) {
        let now = clock.now()
        enum Next {
            case use(String)
            case useAndRenew(String, FCMCredential, epoch: Int)
            case wait
            case fetch(FCMCredential, epoch: Int)
            case fail(PushResult)
        }
        var loaded: FCMCredential?
        if entries.withLock({ $0[businessID] == nil }) {
            do {
                guard let credential = try loadCredential(businessID) else {
                    return body(.failure(.init(.notConfigured(reason: "business has no FCM service account"))))
                }
                loaded = credential
            } catch {
                // Not Google's refusal (see PushResult.unavailable).
                logger.error(
                    "cannot load the FCM service account", ["business.id": String(businessID), "error": "\(error)"])
                return body(.failure(.init(.unavailable("FCM service account", because: error))))
            }
        }
        let next = entries.withLock { entries -> Next in
            if entries[businessID] == nil, let loaded {
                entries[businessID] = Entry(credential: loaded, epoch: epochs.add(1, ordering: .relaxed).newValue)
            }
            guard var entry = entries[businessID] else {
                return .fail(.retryable(reason: "credential replaced", retryAfter: nil))
            }
            switch entry.token {
            case .ready(let token, let refreshAt, let expiresAt, let renewing) where now < expiresAt:
                if now < refreshAt || renewing { return .use(token) }
                entry.token = .ready(token: token, refreshAt: refreshAt, expiresAt: expiresAt, renewing: true)
                entries[businessID] = entry
                return .useAndRenew(token, entry.credential, epoch: entry.epoch)
            case .fetching(var waiters):
                waiters.append(body)
                entry.token = .fetching(waiters: waiters)
                entries[businessID] = entry
                return .wait
            default:
                entry.token = .fetching(waiters: [body])
                entries[businessID] = entry
                return .fetch(entry.credential, epoch: entry.epoch)
            }
        }
        switch next {
        case .use(let token): body(.success(token))
        case .useAndRenew(let token, let credential, let epoch):
            fetchToken(businessID, credential, epoch: epoch)
            body(.success(token))
        case .wait: break
        case .fail(let result): body(.failure(.init(result)))
        case .fetch(let credential, let epoch): fetchToken(businessID, credential, epoch: epoch)
        }
    }

    private func fetchToken(_ businessID: Int64, _ credential: FCMCredential, epoch: Int) {
        let now = clock.now().seconds
        let request: HTTPClientRequest
        do {
            var header: [(key: String, value: JSON)] = [("alg", "RS256"), ("typ", "JWT")]
            if let keyID = credential.privateKeyID { header.append(("kid", .string(keyID))) }
            let claims: JSON = [
                "iss": .string(credential.clientEmail), "scope": .string(Self.scope),
                "aud": .string(credential.tokenURI),
                "iat": .int(now), "exp": .int(now + 3600),
            ]
            let assertion = try JWT.signRS256(
                headerJSON: JSON.object(header).encodedString, claimsJSON: claims.encodedString, key: credential.key)
            let form =
                "grant_type=" + QueryString.percentEncoded("urn:ietf:params:oauth:grant-type:jwt-bearer")
                + "&assertion=" + assertion
            request = HTTPClientRequest(
                method: "POST", url: credential.tokenURI,
                headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
                timeout: configuration.requestTimeout)
        } catch {
            return finishFetch(
                businessID, epoch: epoch,
                .failure(
                    .init(.credentialRejected(reason: "cannot sign the OAuth assertion with the service account key"))))
        }
        client.execute(request) { [self] result in
            switch result {
            case .failure(let error):
                transportWarnings.failed(
                    provider: "FCM", businessID: businessID, url: request.url, reason: "\(error.code)")
                finishFetch(
                    businessID, epoch: epoch,
                    .failure(
                        .init(.retryable(reason: "OAuth token endpoint: transport: \(error.code)", retryAfter: nil))))
            case .success(let response):
                let body = try? JSON.parse(response.body)
                if response.status == 200, let token = body?["access_token"]?.stringValue, !token.isEmpty {
                    let lifetime = body?["expires_in"]?.int64Value ?? 3600
                    let margin = min(configuration.refreshMargin, .seconds(lifetime / 2))
                    let expiresAt = clock.now().adding(.seconds(lifetime))
                    finishFetch(
                        businessID, epoch: epoch, .success(token),
                        lifetime: (
                            refreshAt: expiresAt.adding(.zero - margin),
                            expiresAt: expiresAt.adding(.zero - min(.seconds(30), margin / 2))
                        ))
                } else {
                    let error = body?["error"]?.stringValue ?? "HTTP \(response.status)"
                    let description = body?["error_description"]?.stringValue.map { ": " + $0 } ?? ""
                    let reason = "OAuth token endpoint refused the service account: \(error)\(description)"
                    if response.status >= 500 || response.status == 429 {
                        finishFetch(
                            businessID, epoch: epoch,
                            .failure(.init(.retryable(reason: reason, retryAfter: response.retryAfter))))
                    } else {
                        finishFetch(
                            businessID, epoch: epoch,
                            .failure(.init(.credentialRejected(reason: reason, version: credential.version))))
                    }
                }
            }
        }
    }

    /// Hands the outcome of a fetch to every waiter.
    private func finishFetch(
        _ businessID: Int64, epoch: Int, _ result: Result<String, PushResult.Failure>,
        lifetime: (refreshAt: Timestamp, expiresAt: Timestamp)? = nil
    ) {
        let waiters = entries.withLock { entries -> [@Sendable (Result<String, PushResult.Failure>) -> Void] in
            // Replaced meanwhile: its waiters were answered by `credentialChanged`.
            guard var entry = entries[businessID], entry.epoch == epoch else { return [] }
            var waiters: [@Sendable (Result<String, PushResult.Failure>) -> Void] = []
            switch entry.token {
            case .fetching(let pending):
                waiters = pending
                entry.token = .none
            case .ready(let current, _, let expiresAt, true):
                // A renewal that failed: the current token serves on, and the next send after a pause tries again.
                let again = min(expiresAt, clock.now().adding(.seconds(10)))
                entry.token = .ready(token: current, refreshAt: again, expiresAt: expiresAt, renewing: false)
            default:
                break
            }
            if let lifetime, case .success(let token) = result {
                entry.token = .ready(
                    token: token, refreshAt: lifetime.refreshAt, expiresAt: lifetime.expiresAt, renewing: false)
            }
            entries[businessID] = entry
            return waiters
        }
        for waiter in waiters { waiter(result) }
    }

    // MARK: - Answers

    /// What Google's answer means.
    static func interpret(_ response: HTTPClientResponse) -> PushResult {
        let body = try? JSON.parse(response.body)
        if response.status == 200 { return .delivered(messageID: body?["name"]?.stringValue) }
        let error = body?["error"]
        let status = error?["status"]?.stringValue ?? "HTTP \(response.status)"
        let message = error?["message"]?.stringValue ?? ""
        var code = status
        for detail in error?["details"]?.arrayValue ?? [] {
            if let errorCode = detail["errorCode"]?.stringValue { code = errorCode }
        }
        let reason = message.isEmpty ? "\(response.status) \(code)" : "\(response.status) \(code): \(message)"
        let retryAfter = response.retryAfter
        switch code {
        case "UNREGISTERED":
            return .unregistered(reason: reason, since: nil)
        case "SENDER_ID_MISMATCH":
            // Every token answers this when the service account belongs to another Firebase project: a
            // configuration mistake must not prune the business's Android devices.
            return .failed(reason: reason)
        case "INVALID_ARGUMENT":
            let aboutToken =
                message.lowercased().contains("registration token")
                || (error?["details"]?.arrayValue ?? []).contains { detail in
                    (detail["fieldViolations"]?.arrayValue ?? []).contains {
                        $0["field"]?.stringValue == "message.token"
                    }
                }
            return aboutToken ? .unregistered(reason: reason, since: nil) : .failed(reason: reason)
        case "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL":
            return .retryable(reason: reason, retryAfter: retryAfter)
        case "THIRD_PARTY_AUTH_ERROR", "PERMISSION_DENIED", "UNAUTHENTICATED":
            return .credentialRejected(reason: reason)
        default:
            if response.status == 401 || response.status == 403 { return .credentialRejected(reason: reason) }
            if response.status == 429 || response.status >= 500 {
                return .retryable(reason: reason, retryAfter: retryAfter)
            }
            return .failed(reason: reason)
        }
    }
}

extension PushResult {
    /// A result carried as an error (for token fetches that end a send early).
    public struct Failure: Error, Sendable {
        /// The result to report.
        public let result: PushResult
        /// Wraps `result`.
        public init(_ result: PushResult) { self.result = result }
    }
}
