import HeraldDeliveryPorts
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import HeraldObservability
import Synchronization

/// Delivers to FCM HTTP v1: an OAuth2 access token from the service account (RS256 assertion to the key
/// file's `token_uri`, cached until shortly before it expires, fetched once for all waiting sends), then
/// `POST /v1/projects/{project_id}/messages:send`. Every project's pushes share the one client's connections to
/// Google; with a ``ConnectionBudget`` it keeps only those this node leases of the fleet's budget (`.fcm`), and
/// hands a push back (`leaseless`, not an attempt) while it leases none.
package final class FCMProvider: PushProvider, ConnectionHolder {
    /// Settings.
    package struct Configuration: Sendable {
        /// Replaces `https://fcm.googleapis.com` (HERALD_FCM_URL).
        package var baseURLOverride: String?
        /// How long one request may take.
        package var requestTimeout: Duration = .seconds(30)
        /// Access tokens are renewed this long before they expire.
        package var refreshMargin: Duration = .seconds(300)

        /// Defaults.
        package init(baseURLOverride: String? = nil) { self.baseURLOverride = baseURLOverride }
    }

    /// The OAuth2 scope FCM sends need.
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    package let platform = PushPlatform.fcm
    private let client: HTTP2Client
    private let loadCredential: @Sendable (Int64) throws -> FCMCredential?
    private let clock: WallClock
    private let configuration: Configuration
    private let logger: Logger
    private let transportWarnings: TransportWarnings
    /// The access tokens, by business (`FCMTokenCache`).
    private let tokens: FCMTokenCache
    /// The access tokens every node and restart sends with (`ProviderTokenStore`).
    private let sharedTokens: any ProviderTokenStore
    /// The last access token Google refused, by business: not taken from the shared store again.
    private let refused = Mutex<[Int64: String]>([:])
    /// The fleet's connection budget, if the connections are leased.
    private let budget: ConnectionBudget?

    /// A provider sending through `client`; `credential` loads (and opens) a business's service account; `tokens`
    /// keeps the access tokens every node and restart sends with; `connections`, when given, leases the client's
    /// connections from the fleet's budget.
    package init(
        client: HTTP2Client, credential: @escaping @Sendable (Int64) throws -> FCMCredential?, clock: WallClock,
        configuration: Configuration = .init(), tokens: any ProviderTokenStore = MemoryProviderTokenStore(),
        connections: ConnectionBudget? = nil, logger: Logger
    ) {
        self.budget = connections
        self.sharedTokens = tokens
        self.client = client
        self.loadCredential = credential
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        transportWarnings = TransportWarnings(logger: logger, clock: clock)
        self.tokens = FCMTokenCache(clock: clock, refreshMargin: configuration.refreshMargin)
        connections?.attach(self, for: .fcm)
    }

    package func limitConnections(_ credential: ConnectionCredential, to count: Int) {
        client.limitConnections(to: count)
    }

    package func openConnections(_ credential: ConnectionCredential) -> Int { client.openConnections }

    package func credentialChanged(businessID: Int64) {
        // Sends waiting on a fetch for the old credential are answered now (to be retried), not left hanging.
        for waiter in tokens.forget(businessID) {
            waiter(.failure(.init(.retryable(reason: "credential replaced", retryAfter: nil))))
        }
    }

    package func shutdown() { client.shutdown() }

    package func send(_ push: consuming OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void) {
        if let budget, budget.connections(for: .fcm, at: clock.now()) == 0 {
            return completion(.leaseless(retryAfter: budget.configuration.retry))
        }
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
                guard let credential = tokens.credential(for: push.businessID) else {
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
                        let outcome = Self.interpret(response, at: clock.now())
                        if response.status == 401, !retriedAuthentication, case .credentialRejected = outcome {
                            // The access token was refused (expired early, revoked): fetch a new one and resend once.
                            refused.withLock { $0[push.businessID] = token }
                            tokens.rejected(push.businessID, token: token)
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
            tokens.holds(businessID, versionAtMost: version)
        else { return }
        credentialChanged(businessID: businessID)
    }

    // MARK: - Access tokens

    /// Calls `body` with a valid access token, fetching one (once for all concurrent callers) when needed.
    private func withAccessToken(_ businessID: Int64, _ body: @escaping FCMTokenCache.Waiter) {
        var loaded: FCMCredential?
        if tokens.credential(for: businessID) == nil {
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
        switch tokens.next(for: businessID, loaded: loaded, waiter: body) {
        case .use(let token): body(.success(token))
        case .useAndRenew(let token, let credential, let epoch):
            renew(businessID, credential, epoch: epoch, current: token)
            body(.success(token))
        case .wait: break
        case .fail(let result): body(.failure(.init(result)))
        case .fetch(let credential, let epoch): renew(businessID, credential, epoch: epoch, current: nil)
        }
    }

    /// Gets the next access token for `businessID`: the one another node (or this process before a restart)
    /// stored, if it is newer than `current` and good for a while yet; else fetched here, if no other node is
    /// fetching one (or none is stored that still serves). The store failing does not stop sending.
    private func renew(_ businessID: Int64, _ credential: FCMCredential, epoch: Int, current: String?) {
        let now = clock.now()
        let margin = min(configuration.refreshMargin, .seconds(1800))
        let stored = (try? sharedTokens.token(.business(businessID, .fcm))).flatMap { token in
            token.credentialVersion == credential.version && token.token != current
                && token.token != refused.withLock({ $0[businessID] }) ? token : nil
        }
        if let stored, now.adding(margin) < stored.expiresAt {
            let expiresIn = (stored.expiresAt.milliseconds - now.milliseconds) / 1000
            return finishFetch(businessID, epoch: epoch, .success(stored.token), expiresIn: expiresIn)
        }
        let mayFetch =
            (try? sharedTokens.beginRenewal(
                .business(businessID, .fcm), until: now.adding(configuration.requestTimeout), at: now))
            ?? true
        if !mayFetch {
            if let stored, now < stored.expiresAt {
                let expiresIn = (stored.expiresAt.milliseconds - now.milliseconds) / 1000
                return finishFetch(businessID, epoch: epoch, .success(stored.token), expiresIn: expiresIn)
            }
            if current != nil {
                // Another node is fetching the next one: this one serves on, and a send a little later looks again.
                return finishFetch(
                    businessID, epoch: epoch,
                    .failure(.init(.retryable(reason: "another node is fetching the access token", retryAfter: nil))))
            }
        }
        fetchToken(businessID, credential, epoch: epoch)
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
                    let expiresIn = body?["expires_in"]?.int64Value ?? 3600
                    let now = clock.now()
                    try? sharedTokens.save(
                        SharedProviderToken(
                            token: token, credentialVersion: credential.version, issuedAt: now,
                            expiresAt: now.adding(.seconds(expiresIn))),
                        for: .business(businessID, .fcm))
                    finishFetch(businessID, epoch: epoch, .success(token), expiresIn: expiresIn)
                } else {
                    let error = body?["error"]?.stringValue ?? "HTTP \(response.status)"
                    let description = body?["error_description"]?.stringValue.map { ": " + $0 } ?? ""
                    let reason = "OAuth token endpoint refused the service account: \(error)\(description)"
                    if response.status >= 500 || response.status == 429 {
                        finishFetch(
                            businessID, epoch: epoch,
                            .failure(
                                .init(.retryable(reason: reason, retryAfter: response.retryAfter(now: clock.now())))))
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
        _ businessID: Int64, epoch: Int, _ result: Result<String, PushResult.Failure>, expiresIn: Int64 = 3600
    ) {
        for waiter in tokens.fetched(businessID, epoch: epoch, result, expiresIn: expiresIn) { waiter(result) }
    }

    // MARK: - Answers

    /// What Google's answer means, received at `now` (a `Retry-After` date counts from it).
    static func interpret(_ response: HTTPClientResponse, at now: Timestamp) -> PushResult {
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
        let retryAfter = response.retryAfter(now: now)
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
            return .retry(status: response.status, reason: reason, retryAfter: retryAfter)
        case "THIRD_PARTY_AUTH_ERROR", "PERMISSION_DENIED", "UNAUTHENTICATED":
            return .credentialRejected(reason: reason)
        default:
            if response.status == 401 || response.status == 403 { return .credentialRejected(reason: reason) }
            if response.status == 429 || response.status >= 500 {
                return .retry(status: response.status, reason: reason, retryAfter: retryAfter)
            }
            return .failed(reason: reason)
        }
    }
}

extension PushResult {
    /// A result carried as an error (for token fetches that end a send early).
    package struct Failure: Error, Sendable {
        /// The result to report.
        package let result: PushResult
        /// Wraps `result`.
        package init(_ result: PushResult) { self.result = result }
    }
}
