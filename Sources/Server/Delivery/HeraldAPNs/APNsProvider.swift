import HeraldDeliveryPorts
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import HeraldObservability
import Synchronization

/// Delivers to Apple's provider API: `POST /3/device/<token>` over HTTP/2 with token authentication.
///
/// One JWT per key is reused across every request, connection and business holding the key (see `APNsKeyTokens`);
/// `apns-id` is the delivery's own, so a retried send is recognisable; payloads over 4096 bytes are refused
/// before anything is sent.
///
/// Apple binds a connection to the key of its first request (another key on it is refused with
/// `UnrelatedKeyIdInToken`), so each credential gets its own HTTP/2 client and connections, and a replaced
/// credential starts on new ones. A client unused for ``Configuration/idleClientLifetime`` is shut down (its
/// threads and connections freed) and made again by the business's next push, so threads follow the businesses
/// sending now, not every business that ever sent. With a ``ConnectionBudget`` each credential's client keeps only
/// the connections this node leases of the fleet's budget, and a push of a credential it leases none of is handed
/// back (`leaseless`, not an attempt) for a node that does.
///
/// Each push goes to the host of its device's environment, else of the credential's (`APNsHosts`), on the
/// credential's one client (a pool of connections per host, each within the lease). A token one host refuses as
/// `BadDeviceToken` is sent to the other host once before it counts as dead: when that one takes it, the answer names
/// its environment, for the device to keep.
package final class APNsProvider: PushProvider, ConnectionHolder {
    /// Settings.
    package struct Configuration: Sendable {
        /// Replaces Apple's production host, and its sandbox host too unless `sandboxURLOverride` is set
        /// (HERALD_APNS_URL).
        package var baseURLOverride: String?
        /// Replaces Apple's sandbox host (HERALD_APNS_SANDBOX_URL).
        package var sandboxURLOverride: String?
        /// How long one request may take.
        package var requestTimeout: Duration = .seconds(30)
        /// A business's client unused this long is shut down.
        package var idleClientLifetime: Duration = .seconds(600)

        /// Defaults.
        package init(baseURLOverride: String? = nil, sandboxURLOverride: String? = nil) {
            self.baseURLOverride = baseURLOverride
            self.sandboxURLOverride = sandboxURLOverride
        }
    }

    /// A business's credential, client and provider token; read and changed under `entries`' lock only. A class:
    /// every push looks it up, and a struct of this many references was copied out (a retain each) to be read.
    private final class Entry {
        var credential: APNsCredential
        /// Nil once shut down for being idle; the provider token stays (Apple refuses refreshes more often
        /// than every 20 minutes, and a business sending every quarter hour would refresh on each).
        var client: HTTP2Client?
        /// The token of the credential's key, shared with every business holding that key.
        var tokens: APNsKeyTokens
        /// When it last sent (seconds).
        var lastUsed: Int64

        init(credential: APNsCredential, tokens: APNsKeyTokens, lastUsed: Int64) {
            self.credential = credential
            self.tokens = tokens
            self.lastUsed = lastUsed
        }

        /// What a push needs now, as far as the entry knows without the shared store: nil once its client is shut
        /// down for being idle.
        func route(at now: Int64) throws -> Routing? {
            guard let client else { return nil }
            lastUsed = now
            switch try tokens.next(at: now) {
            case .use(let bearer):
                return .ready(
                    Route(
                        client: client, bearer: bearer, topic: credential.topic, environment: credential.environment,
                        version: credential.version))
            case .fetch(let fetch):
                return .fetching(fetch, credential, client, tokens)
            }
        }
    }

    /// A push's route, or what it takes to complete one: a provider token fetched from the shared store (or signed)
    /// with the credential, outside the lock of `entries`, for the key's tokens.
    private enum Routing {
        case ready(Route)
        case fetching(APNsTokenCache.Fetch, APNsCredential, HTTP2Client, APNsKeyTokens)
    }

    /// What a push needs of its business's credential.
    private struct Route {
        let client: HTTP2Client
        /// The `authorization` header value (the current provider token).
        let bearer: String
        let topic: String
        let environment: APNsCredential.Environment
        let version: Timestamp
    }

    package let platform = PushPlatform.apns
    private let makeClient: @Sendable () throws -> HTTP2Client
    private let loadCredential: @Sendable (Int64) throws -> APNsCredential?
    private let clock: WallClock
    private let configuration: Configuration
    private let hosts: APNsHosts
    private let logger: Logger
    private let transportWarnings: TransportWarnings
    private let entries = Mutex<[Int64: Entry]>([:])
    /// The provider token of each key in use, by fingerprint; taken inside the lock of `entries`.
    private let keyTokens = Mutex<[String: APNsKeyTokens]>([:])
    /// The provider tokens every node sends with.
    private let sharedTokens: any ProviderTokenStore
    /// When idle clients are next looked for (seconds).
    private let nextSweep = Atomic<Int64>(0)
    /// The fleet's connection budget per credential, if the connections are leased.
    private let budget: ConnectionBudget?

    /// A provider sending through clients made by `makeClient` (one per credential); `credential` loads (and
    /// opens) a business's credential; `tokens` keeps the provider tokens every node and restart sends with;
    /// `connections`, when given, leases each credential's connections from the fleet's budget.
    package init(
        makeClient: @escaping @Sendable () throws -> HTTP2Client,
        credential: @escaping @Sendable (Int64) throws -> APNsCredential?, clock: WallClock,
        configuration: Configuration = .init(), tokens: any ProviderTokenStore = MemoryProviderTokenStore(),
        connections: ConnectionBudget? = nil, logger: Logger
    ) {
        self.budget = connections
        self.sharedTokens = tokens
        self.makeClient = makeClient
        self.loadCredential = credential
        self.clock = clock
        self.configuration = configuration
        hosts = APNsHosts(configuration)
        self.logger = logger
        transportWarnings = TransportWarnings(logger: logger, clock: clock)
        connections?.attach(self, for: .apns)
    }

    package func limitConnections(_ credential: ConnectionCredential, to count: Int) {
        guard let businessID = credential.businessID else { return }
        entries.withLock { $0[businessID]?.client }?.limitConnections(to: count)
    }

    package func openConnections(_ credential: ConnectionCredential) -> Int {
        guard let businessID = credential.businessID else { return 0 }
        // Per host: the lease's count holds for each of Apple's hosts the credential sends to.
        return entries.withLock { $0[businessID]?.client }?.openConnectionsPerOrigin ?? 0
    }

    package func credentialChanged(businessID: Int64) {
        // In-flight sends on the old connections fail and are retried on new ones.
        entries.withLock { $0.removeValue(forKey: businessID) }?.client?.shutdown()
    }

    package func shutdown() {
        let clients = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.values.compactMap(\.client)
        }
        for client in clients { client.shutdown() }
    }

    /// The client, provider token and credential details a push of `businessID` goes with.
    private func route(_ businessID: Int64) throws -> Route? {
        let now = clock.now().seconds
        if now >= nextSweep.load(ordering: .relaxed) { shutDownIdleClients(now: now) }
        if let routing = try entries.withLock({ try $0[businessID]?.route(at: now) }) {
            return try complete(routing, businessID: businessID, now: now)
        }
        let credential: APNsCredential
        let client: HTTP2Client
        do {
            guard let loaded = try loadCredential(businessID) else { return nil }
            credential = loaded
            client = try makeClient()
        } catch {
            throw Unavailable(underlying: error)
        }
        let fingerprint = credential.keyFingerprint
        var unused: HTTP2Client?
        var installed = false
        let routing = try entries.withLock { entries -> Routing? in
            let entry =
                entries[businessID] ?? Entry(credential: credential, tokens: tokens(of: fingerprint), lastUsed: now)
            entries[businessID] = entry
            if entry.credential.version < credential.version {
                // Replaced while this node was idle for it (or on another node): its key, and that key's token.
                entry.credential = credential
                entry.tokens = tokens(of: fingerprint)
            }
            if entry.client == nil {
                entry.client = client  // new, or back after being idle (with its provider token)
                installed = true
            } else {
                unused = client  // another thread got there first
            }
            return try entry.route(at: now)
        }
        unused?.shutdown()
        // Read once it is in place: a later change of the lease reaches it there.
        if installed, let budget { client.limitConnections(to: budget.usableConnections(.apns(businessID))) }
        return try routing.map { try complete($0, businessID: businessID, now: now) }
    }

    /// The tokens of the key with `fingerprint`, made the first time it is asked for. Called under the lock of
    /// `entries`: the businesses holding one key get one token, however many load it at once.
    private func tokens(of fingerprint: String) -> APNsKeyTokens {
        keyTokens.withLock { tokens in
            if let held = tokens[fingerprint] { return held }
            let made = APNsKeyTokens(fingerprint: fingerprint)
            tokens[fingerprint] = made
            return made
        }
    }

    /// The route `routing` leads to: its provider token fetched first if it needs one, while the lock of `entries`
    /// is free (the shared store may be a database round trip away, and every business's pushes take that lock),
    /// then handed to the key's tokens, which handed out the fetch.
    private func complete(_ routing: Routing, businessID: Int64, now: Int64) throws -> Route {
        switch routing {
        case .ready(let route):
            return route
        case .fetching(let fetch, let credential, let client, let tokens):
            let result = Result {
                try fetch.perform(for: credential, businessID: businessID, shared: sharedTokens, now: now)
            }
            tokens.fetched(try? result.get())
            return Route(
                client: client, bearer: try result.get().authorization, topic: credential.topic,
                environment: credential.environment, version: credential.version)
        }
    }

    package func send(_ push: consuming OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void) {
        if let budget, budget.connections(for: .apns(push.businessID), at: clock.now()) == 0 {
            return completion(.leaseless(retryAfter: budget.configuration.retry))
        }
        let payload = push.apnsPayload
        guard payload.count <= APNsPayload.maximumSize else {
            return completion(
                .failed(reason: "payload is \(payload.count) bytes; APNs accepts at most \(APNsPayload.maximumSize)"))
        }
        send(push, payload: payload, refreshedToken: false, host: nil, completion: completion)
    }

    /// Sends `push` to `host` (nil: its device's, else its credential's environment, as not yet tried elsewhere).
    private func send(
        _ push: consuming OutgoingPush, payload: [UInt8], refreshedToken: Bool, host: Host?,
        completion: @escaping @Sendable (PushResult) -> Void
    ) {
        let route: Route
        do {
            guard let found = try self.route(push.businessID) else {
                return completion(.notConfigured(reason: "business has no APNs credentials"))
            }
            route = found
        } catch let unavailable as Unavailable {
            // The store, the sealing key or the HTTP client failed us, not Apple: not the credential's fault.
            logger.error(
                "cannot load the APNs credential",
                ["business.id": String(push.businessID), "error": "\(unavailable.underlying)"])
            return completion(.unavailable("APNs credential", because: unavailable.underlying))
        } catch is APNsTokenCache.Renewing {
            return completion(
                .throttled(reason: "the provider token is being renewed", retryAfter: .seconds(2)))
        } catch {
            return completion(.credentialRejected(reason: "cannot sign a provider token with the .p8 key"))
        }
        let host =
            host ?? Host(environment: hosts.environment(device: push.apnsEnvironment, credential: route.environment))
        let base = hosts.url(host.environment)
        // Sized once: this runs for every push.
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        headers.append(("authorization", route.bearer))
        headers.append(("apns-topic", route.topic))
        headers.append(("apns-push-type", push.content.isBackground ? "background" : "alert"))
        headers.append(("apns-priority", push.content.isBackground ? "5" : "10"))
        headers.append(("apns-id", push.apnsID))
        headers.append(("content-type", "application/json"))
        if let expiresAt = push.expiresAt {
            headers.append(("apns-expiration", String(max(0, expiresAt.seconds))))
        }
        if let collapseID = push.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        var url = ""
        url.reserveCapacity(base.utf8.count + 10 + push.token.utf8.count)
        url += base
        url += "/3/device/"
        url += push.token
        let request = HTTPClientRequest(
            method: "POST", url: url, headers: headers, body: payload, timeout: configuration.requestTimeout)
        let attempt = Attempt(
            provider: self, push: push, payload: payload, completion: completion, base: base, bearer: route.bearer,
            version: route.version, refreshedToken: refreshedToken, host: host)
        route.client.execute(request) { result in attempt.answered(result) }
    }

    /// One request for a push: what its answer is read with and a resend needs. The request's completion captures
    /// this one object, which then serves as the closure's context (a closure capturing several values allocates
    /// one, and copying the push's fields into it cost a retain each here and a release on the HTTP/2 loop's
    /// thread).
    private final class Attempt: Sendable {
        let provider: APNsProvider
        let push: OutgoingPush
        let payload: [UInt8]
        let completion: @Sendable (PushResult) -> Void
        /// The origin it was sent to, for warnings.
        let base: String
        /// The provider token it went with.
        let bearer: String
        /// The credential it went with.
        let version: Timestamp
        /// Whether this is the resend after an expired provider token.
        let refreshedToken: Bool
        /// The host it went to.
        let host: Host

        init(
            provider: APNsProvider, push: consuming OutgoingPush, payload: [UInt8],
            completion: @escaping @Sendable (PushResult) -> Void, base: String, bearer: String, version: Timestamp,
            refreshedToken: Bool, host: Host
        ) {
            self.host = host
            self.provider = provider
            self.push = push
            self.payload = payload
            self.completion = completion
            self.base = base
            self.bearer = bearer
            self.version = version
            self.refreshedToken = refreshedToken
        }

        func answered(_ result: Result<HTTPClientResponse, HTTPClientError>) {
            switch result {
            case .failure(let error):
                provider.transportWarnings.failed(
                    provider: "APNs", businessID: push.businessID, url: base, reason: "\(error.code)")
                completion(.transportFailure(error))
            case .success(let response):
                let outcome = APNsProvider.interpret(response, apnsID: push.apnsID, at: provider.clock.now())
                if case .credentialRejected(let reason, _) = outcome,
                    reason == APNsReason.expiredProviderToken.rawValue,
                    !refreshedToken
                {
                    // The token aged out early (clock skew): sign a new one at once and resend this push once.
                    provider.entries.withLock { $0[push.businessID]?.tokens }?.expired(bearer)
                    provider.logger.notice(
                        "APNs provider token expired; signing a new one", ["business.id": String(push.businessID)])
                    provider.send(push, payload: payload, refreshedToken: true, host: host, completion: completion)
                } else if case .throttled = outcome, !refreshedToken,
                    provider.adoptShared(push.businessID, refused: bearer)
                {
                    // A token of this node's refused as one too many (it signed its own, say, while the store was
                    // down): another node's, which Apple accepted, is stored; send this push with it, once.
                    provider.send(push, payload: payload, refreshedToken: true, host: host, completion: completion)
                } else if !host.isFallback, let other = provider.hosts.fallback(from: host.environment),
                    APNsHosts.refusesToken(response)
                {
                    // Perhaps a token of the other environment (a development build's sent to production, or the
                    // reverse): the other host, once, before the token counts as dead.
                    let fallback = Host(environment: other, isFallback: true)
                    provider.send(
                        push, payload: payload, refreshedToken: refreshedToken, host: fallback, completion: completion)
                } else {
                    if case .credentialRejected = outcome {
                        provider.forgetIfReplaced(push.businessID, version: version)
                    }
                    completion(host.named(outcome.sent(with: version)))
                }
            }
        }
    }

    /// Takes the stored provider token of `businessID`'s key if it is another than `refused`; true when it did.
    /// Read outside the lock of `entries`.
    private func adoptShared(_ businessID: Int64, refused: String) -> Bool {
        let now = clock.now().seconds
        guard let (credential, tokens) = entries.withLock({ $0[businessID].map { ($0.credential, $0.tokens) } })
        else { return false }
        let stored = APNsTokenCache.stored(for: credential, businessID: businessID, shared: sharedTokens)
        return tokens.adoptShared(stored, refused: refused, now: now)
    }

    /// Apple refused the credential of `version`: if the stored one is newer (replaced on another node, or while
    /// this one was being loaded), forget the cached one, so the next push goes with the new key on new
    /// connections instead of being refused for ever.
    private func forgetIfReplaced(_ businessID: Int64, version: Timestamp) {
        guard let stored = try? loadCredential(businessID), stored.version > version else { return }
        let stale = entries.withLock { entries -> HTTP2Client? in
            guard let entry = entries[businessID], entry.credential.version <= version else { return nil }
            return entries.removeValue(forKey: businessID)?.client
        }
        stale?.shutdown()
    }

    /// Shuts down the clients of businesses that sent nothing for `idleClientLifetime`; at most once a minute.
    private func shutDownIdleClients(now: Int64) {
        let lifetime = configuration.idleClientLifetime.components.seconds
        nextSweep.store(now + min(60, max(1, lifetime)), ordering: .relaxed)
        let idle = entries.withLock { entries -> [HTTP2Client] in
            var idle: [HTTP2Client] = []
            for businessID in entries.keys where now - entries[businessID]!.lastUsed >= lifetime {
                if let client = entries[businessID]!.client { idle.append(client) }
                entries[businessID]!.client = nil
            }
            // The tokens of keys no business holds any more (replaced, or their credentials changed).
            let held = Set(entries.values.map(\.tokens.fingerprint))
            keyTokens.withLock { tokens in tokens = tokens.filter { held.contains($0.key) } }
            return idle
        }
        for client in idle { client.shutdown() }
        if !idle.isEmpty { logger.info("idle APNs clients shut down", ["client.count": String(idle.count)]) }
    }

    /// Loading a credential or making its client failed (as opposed to signing with it).
    private struct Unavailable: Error {
        let underlying: any Error
    }

    /// What Apple's answer means, received at `now` (a `Retry-After` date counts from it).
    static func interpret(_ response: HTTPClientResponse, apnsID: String, at now: Timestamp) -> PushResult {
        if response.status == 200 { return .delivered(messageID: response.header("apns-id") ?? apnsID) }
        let body = try? JSON.parse(response.body)
        let reason = APNsReason(body?["reason"]?.stringValue ?? "HTTP \(response.status)")
        let described = "\(response.status) \(reason)"
        if reason == .expiredProviderToken { return .credentialRejected(reason: reason.rawValue) }
        if response.status == 410 || reason.meansDeadToken {
            let since = body?["timestamp"]?.int64Value.map(Timestamp.init(milliseconds:))
            return .unregistered(reason: described, since: since)
        }
        if reason.meansBrokenCredential || response.status == 403 { return .credentialRejected(reason: described) }
        if reason.meansRetry || response.status == 429 || response.status >= 500 {
            let retryAfter = response.retryAfter(now: now)
            if reason == .tooManyProviderTokenUpdates {
                // The credential's token, not this push: every push of it waits, none counting an attempt, until a
                // token Apple takes is in use (another node's, or this one's once Apple's 20 minutes have passed).
                return .throttled(reason: described, retryAfter: retryAfter ?? .seconds(60))
            }
            // Apple's 429 TooManyRequests is about one device token pushed to too often, not the provider's load.
            if reason == .tooManyRequests { return .retryable(reason: described, retryAfter: retryAfter) }
            return .retry(status: response.status, reason: described, retryAfter: retryAfter)
        }
        return .failed(reason: described)
    }
}
