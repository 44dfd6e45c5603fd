import Foundation
import HeraldModel
import HeraldObservability
import HeraldStore
import Synchronization

/// The delivery workers: claims due jobs from the store's queue under a lease, hands them to the providers,
/// and writes each outcome back — retry with backoff, prune a dead token, wait on a broken credential.
///
/// One dispatcher thread claims and records in batches; providers send asynchronously, so there is no thread
/// per push. Nothing is lost if the process dies: unfinished jobs keep their lease in the store and are
/// claimed again when it runs out (at once by this node when it restarts, see `start`). What is sent twice
/// after a crash is what was in flight, so the window of sends in flight is kept as narrow as the provider
/// allows without losing throughput (`ConcurrencyLimit`); jobs claimed ahead of it are not sent yet and cost
/// nothing on a restart.
public final class DeliveryEngine: @unchecked Sendable {
    /// Tuning.
    public struct Configuration: Sendable {
        /// This node's stable id, the owner of its leases (kept in the data dir).
        public var owner: String
        /// Most sends in flight; the window adapts below it to what the provider answers at (see
        /// `ConcurrencyLimit`), down to `minimumConcurrency`.
        public var concurrency: Int = 512
        /// Fewest sends the window keeps in flight.
        public var minimumConcurrency: Int = 16
        /// Most jobs claimed per query.
        public var claimBatch: Int = 500
        /// How long a claim is held.
        public var lease: Duration = .seconds(60)
        /// Backoff for retryable failures.
        public var retry = RetryPolicy()
        /// How long jobs wait before looking at a broken credential again.
        public var brokenCredentialWait: Duration = .seconds(600)
        /// How often the queue is polled when nothing wakes the engine (retries coming due, other nodes' jobs).
        public var idlePoll: Duration = .milliseconds(500)
        /// How long after its creation Apple and Google may still deliver a push to an offline device.
        public var expiration: Duration = .seconds(86_400)
        /// Answers are written together, at the latest this long after the first of them arrived…
        public var recordDelay: Duration = .milliseconds(2)
        /// …or as soon as this many are waiting. An answer not yet written when the process dies is sent again.
        public var recordBatch: Int = 32

        /// A configuration for `owner`.
        public init(owner: String) { self.owner = owner }
    }

    private struct State {
        var running = false
        var stopping = false
        var woken = false
        /// The dispatcher sleeps and nothing has signalled it yet.
        var asleep = false
        var inFlight = 0
        var window: ConcurrencyLimit
        var completions: [DeliveryCompletion] = []
        /// When the first of `completions` arrived.
        var firstCompletion: ContinuousClock.Instant?

        mutating func add(_ completion: DeliveryCompletion) {
            completions.append(completion)
            if firstCompletion == nil { firstCompletion = .now }
        }

        /// How long until the answers waiting are to be written (zero or less: now): `delay` after the first of
        /// them, or at once when `batch` are waiting. Nil when none is.
        func recordIn(delay: Duration, batch: Int, now: ContinuousClock.Instant) -> Duration? {
            guard let first = firstCompletion else { return nil }
            return completions.count >= batch ? .zero : first + delay - now
        }
        var broken: [String: String] = [:]  // "business/platform" → reason
    }

    private let store: any Store
    private let providers: [PushPlatform: any PushProvider]
    private let clock: WallClock
    private let configuration: Configuration
    private let logger: Logger
    private let metrics: MetricsRegistry
    private let random: @Sendable () -> Double
    private let state: Mutex<State>
    /// Jobs claimed and not yet sent, with their lease's end, last one next. The dispatcher's alone.
    private var pending: [(job: ClaimedDelivery, leaseUntil: Timestamp)] = []
    private let signal = NSCondition()
    private let finished = DispatchSemaphore(value: 0)
    private let inFlightGauge: Gauge
    private let windowGauge: Gauge

    /// An engine over `store` with one provider per platform.
    public init(
        store: any Store, providers: [any PushProvider], clock: WallClock, configuration: Configuration, logger: Logger,
        metrics: MetricsRegistry, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.providers = Dictionary(uniqueKeysWithValues: providers.map { ($0.platform, $0) })
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.random = random
        let lower = min(configuration.minimumConcurrency, configuration.concurrency)
        state = Mutex(
            State(
                window: ConcurrencyLimit(range: max(1, lower)...max(1, configuration.concurrency), initial: lower * 2)))
        windowGauge = metrics.gauge(
            "herald_delivery_window", help: "Most pushes the engine keeps in flight now (adapts to the providers).")
        windowGauge.set(Double(state.withLock { $0.window.limit }))
        inFlightGauge = metrics.gauge("herald_delivery_in_flight", help: "Pushes sent and not yet answered.")
        // One query answers the three gauges of a scrape.
        let depth = RecentValue(lifetime: .milliseconds(200)) { [store, clock] in try? store.queueDepth(at: clock.now())
        }
        for (state, value) in [("queued", \QueueDepth.queued), ("due", \.due), ("sending", \.sending)] {
            metrics.sampledGauge(
                "herald_delivery_queue_depth", help: "Delivery jobs by state.", labels: ["state": state]
            ) {
                Double(depth.get().map { $0[keyPath: value] } ?? -1)
            }
        }
        metrics.sampledGauge(
            "herald_push_credentials_broken", help: "Push credentials the provider refused; their jobs wait."
        ) {
            [store] in Double((try? store.brokenCredentials().count) ?? -1)
        }
    }

    /// Takes back this node's leases from a previous run (so a restart resumes at once) and starts the dispatcher.
    public func start() throws {
        let released = try store.releaseDeliveries(owner: configuration.owner, at: clock.now())
        if released > 0 {
            logger.notice("resuming deliveries left by the previous run", ["delivery.count": String(released)])
        }
        let broken = try store.brokenCredentials()
        state.withLock { state in
            state.running = true
            for credential in broken {
                state.broken[Self.key(credential.businessID, credential.platform)] =
                    "credential broken: " + (credential.brokenReason ?? "")
            }
        }
        let thread = Thread { [self] in run() }
        thread.name = "herald-delivery"
        thread.start()
    }

    /// Tells the dispatcher new jobs may be due.
    public func wake() {
        signal.lock()
        state.withLock { $0.woken = true }
        signal.signal()
        signal.unlock()
    }

    /// A business's credential was replaced: forget it was broken, drop cached tokens, make waiting jobs due.
    public func credentialChanged(businessID: Int64, platform: PushPlatform) {
        _ = state.withLock { $0.broken.removeValue(forKey: Self.key(businessID, platform)) }
        providers[platform]?.credentialChanged(businessID: businessID)
        do {
            try store.rescheduleDeliveries(businessID: businessID, platform: platform, dueAt: clock.now())
        } catch {
            logger.error(
                "cannot reschedule waiting deliveries", ["business.id": String(businessID), "error": "\(error)"])
        }
        wake()
    }

    /// Stops claiming, lets sends in flight finish (up to `gracePeriod`), records them, and hands every
    /// unfinished claim back to the queue.
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        let wasRunning = state.withLock { state -> Bool in
            let running = state.running
            state.stopping = true
            return running
        }
        guard wasRunning else { return }
        wake()
        let deadline = DispatchTime.now() + .milliseconds(Int(gracePeriod.components.seconds * 1000 + 1000))
        _ = finished.wait(timeout: deadline)
        flush()
        do {
            let released = try store.releaseDeliveries(owner: configuration.owner, at: clock.now())
            if released > 0 { logger.notice("handed unfinished deliveries back", ["delivery.count": String(released)]) }
        } catch {
            logger.error("cannot hand deliveries back; their leases will run out", ["error": "\(error)"])
        }
        state.withLock { $0.running = false }
    }

    // MARK: - The dispatcher

    private func run() {
        while true {
            let (stopping, inFlight, limit) = state.withLock { ($0.stopping, $0.inFlight, $0.window.limit) }
            if stopping {
                flush(force: true)
                if inFlight == 0 { break }
                waitForSignal(.milliseconds(20))
                continue
            }
            // Refill the window first: the answers that made room are recorded right after, and a send waiting
            // for a write transaction would lengthen every round trip.
            var room = limit - inFlight
            func refill() {
                while room > 0, let next = pending.popLast() {
                    if dispatch(next.job, leaseUntil: next.leaseUntil) { room -= 1 }
                }
            }
            refill()
            flush(force: false)
            // Keep several windows claimed ahead: claims are then few and large, and what waits here was never
            // sent, so a crash costs it nothing. Not more, so that it is sent long before its lease runs out.
            let ahead = min(configuration.claimBatch, max(8 * limit, 64))
            var queueDrained = false
            if pending.count <= ahead / 2 {
                let wanted = ahead - pending.count
                queueDrained = claim(wanted) < wanted
            }
            refill()
            // The window may have narrowed below what is in flight: room is then negative, and we wait too.
            if room <= 0 || (pending.isEmpty && queueDrained) { waitForSignal(configuration.idlePoll) }
        }
        finished.signal()
    }

    private func waitForSignal(_ timeout: Duration) {
        signal.lock()
        let now = ContinuousClock.now
        let (ready, recordIn) = state.withLock { state -> (Bool, Duration?) in
            let recordIn = state.recordIn(
                delay: configuration.recordDelay, batch: configuration.recordBatch, now: now)
            let ready = state.woken || (recordIn.map { $0 <= .zero } ?? false)
            state.woken = false
            state.asleep = !ready
            return (ready, recordIn)
        }
        if !ready {
            _ = signal.wait(until: Date(timeIntervalSinceNow: min(timeout, recordIn ?? timeout) / .seconds(1)))
            state.withLock {
                $0.woken = false
                $0.asleep = false
            }
        }
        signal.unlock()
    }

    /// Claims up to `limit` due jobs into `pending`; returns how many.
    private func claim(_ limit: Int) -> Int {
        let now = clock.now()
        let leaseUntil = now.adding(configuration.lease)
        let jobs: [ClaimedDelivery]
        do {
            jobs = try store.claimDeliveries(owner: configuration.owner, limit: limit, leaseUntil: leaseUntil, at: now)
        } catch {
            logger.error("cannot claim deliveries", ["error": "\(error)"])
            return 0
        }
        pending.insert(contentsOf: jobs.reversed().map { ($0, leaseUntil) }, at: 0)
        return jobs.count
    }

    /// Sends `job`, or settles it at once when it can't be sent; returns whether a send went out.
    private func dispatch(_ job: ClaimedDelivery, leaseUntil: Timestamp) -> Bool {
        let now = clock.now()
        func finish(_ outcome: DeliveryCompletion.Outcome, _ label: String) {
            count(job.platform, label)
            state.withLock {
                $0.add(
                    DeliveryCompletion(
                        id: job.id, leaseOwner: configuration.owner, outcome: outcome, deviceID: job.deviceID,
                        token: job.token))
            }
        }
        // Held here so long that its lease is half gone (a provider stalling): hand it back to the queue, due now
        // and with the attempt it never made returned, rather than risk a send racing another claim.
        guard now < leaseUntil.adding(.zero - configuration.lease / 2) else {
            finish(.wait(until: now, reason: "held past half its lease"), "requeued")
            return false
        }
        guard job.deviceBelongsToRecipient else {
            finish(.skipped(reason: "device now signed in as another user"), "skipped")
            return false
        }
        guard let token = job.token else {
            finish(.skipped(reason: "token cleared (logged out or pruned)"), "skipped")
            return false
        }
        guard let provider = providers[job.platform] else {
            finish(.failed(reason: "no provider for \(job.platform)"), "failed")
            return false
        }
        let businessID = job.notification.businessID
        if let reason = state.withLock({ $0.broken[Self.key(businessID, job.platform)] }) {
            finish(parked(job, reason: reason, at: now), "waiting")
            return false
        }
        let entry = job.notification
        let push = OutgoingPush(
            deliveryID: job.id, businessID: businessID, token: token, apnsID: job.apnsID,
            content: PushContent(
                notificationID: entry.id, title: entry.title, subtitle: entry.subtitle, body: entry.body,
                sound: entry.sound,
                badge: entry.pushStyle == .background ? nil : job.badge, media: entry.media,
                extras: entry.extras.objectValue ?? [], isBackground: entry.pushStyle == .background),
            expiresAt: entry.createdAt.adding(configuration.expiration), collapseID: entry.collapseID,
            attempt: job.attempts)
        let outstanding = state.withLock { state in
            state.inFlight += 1
            return state.inFlight
        }
        inFlightGauge.add(1)
        let started = ContinuousClock.now
        let sent = SendReturned()
        provider.send(push) { [self] result in
            // An answer given before `send` returned (payload too large, no credential) made no round trip: it
            // says nothing about the provider's speed and must not teach the window.
            let roundTrip = sent.flag.load(ordering: .acquiring) ? ContinuousClock.now - started : nil
            record(job, result, sentAt: now, roundTrip: roundTrip, outstanding: outstanding)
        }
        sent.flag.store(true, ordering: .releasing)
        return true
    }

    private func record(
        _ job: ClaimedDelivery, _ result: PushResult, sentAt: Timestamp, roundTrip: Duration?, outstanding: Int
    ) {
        let now = clock.now()
        let outcome: DeliveryCompletion.Outcome
        let label: String
        switch result {
        case .delivered(let messageID):
            (outcome, label) = (.delivered(providerMessageID: messageID), "delivered")
        case .retryable(let reason, let retryAfter):
            if let delay = configuration.retry.delay(
                afterAttempt: job.attempts, retryAfter: retryAfter, random: random())
            {
                (outcome, label) = (.retry(at: now.adding(delay), reason: reason), "retried")
            } else {
                (outcome, label) = (.failed(reason: "gave up after \(job.attempts) attempts: \(reason)"), "failed")
            }
        case .unregistered(let reason, let since):
            (outcome, label) = (.pruned(reason: reason, unregisteredAt: since), "pruned")
        case .credentialRejected(let reason, let version):
            if credentialBroken(
                businessID: job.notification.businessID, platform: job.platform, reason: reason,
                refused: version ?? sentAt)
            {
                (outcome, label) = (parked(job, reason: "credential broken: \(reason)", at: now), "waiting")
            } else {
                // Refused with the key the operator has replaced since: go again, with the new one.
                (outcome, label) = (.retry(at: now, reason: "refused with a replaced credential: \(reason)"), "retried")
            }
        case .notConfigured(let reason):
            // Not an error yet: the operator may add the credential, which makes the job due again at once.
            _ = state.withLock {
                $0.broken.updateValue(reason, forKey: Self.key(job.notification.businessID, job.platform))
            }
            (outcome, label) = (parked(job, reason: reason, at: now), "waiting")
        case .failed(let reason):
            (outcome, label) = (.failed(reason: reason), "failed")
        }
        count(job.platform, label)
        if let roundTrip { latency(job.platform).observe(roundTrip) }
        if logger.isEnabled(.debug) {
            logger.debug(
                "push answered",
                [
                    "delivery.id": String(job.id), "notification.id": String(job.notification.id),
                    "provider": job.platform.rawValue,
                    "outcome": label,
                ])
        }
        let completion = DeliveryCompletion(
            id: job.id, leaseOwner: configuration.owner, outcome: outcome, deviceID: job.deviceID, token: job.token)
        // Outcomes are written together, soon after the first arrives (`recordDelay`, `recordBatch`): an answer
        // Apple gave that isn't written yet is sent again after a crash.
        let (shouldSignal, window) = state.withLock { state -> (Bool, Int) in
            state.add(completion)
            state.inFlight -= 1
            if let roundTrip { state.window.record(seconds: roundTrip / .seconds(1), inFlight: outstanding) }
            // Wake the dispatcher to refill the window an eighth at a time, to start the clock of a first answer,
            // and to write a full batch.
            let count = state.completions.count
            let limit = state.window.limit
            let refill = state.asleep && limit - state.inFlight >= max(1, limit / 8)
            let wake = refill || count == 1 || count == configuration.recordBatch || state.stopping
            if wake { state.asleep = false }
            return (wake, limit)
        }
        inFlightGauge.add(-1)
        windowGauge.set(Double(window))
        if shouldSignal {
            signal.lock()
            signal.signal()
            signal.unlock()
        }
    }

    /// A job that can't go out until its business's credential is set or fixed: it waits, unless it is past
    /// the time Apple or Google would still deliver it anyway.
    private func parked(_ job: ClaimedDelivery, reason: String, at now: Timestamp) -> DeliveryCompletion.Outcome {
        let expires = job.notification.createdAt.adding(configuration.expiration)
        guard now < expires else { return .failed(reason: "expired while waiting: \(reason)") }
        return .wait(until: min(expires, now.adding(configuration.brokenCredentialWait)), reason: reason)
    }

    /// The provider refused a push for its credential: marks the credential broken, unless the stored one is
    /// newer than `refused` (the refused credential's version, or when the push was sent if the provider could
    /// not say): then the refusal was about a key since replaced. Returns whether the credential is broken.
    private func credentialBroken(businessID: Int64, platform: PushPlatform, reason: String, refused: Timestamp)
        -> Bool
    {
        let key = Self.key(businessID, platform)
        if state.withLock({ $0.broken[key] != nil }) { return true }
        let marked: Bool
        do {
            marked = try store.markCredential(
                businessID: businessID, platform: platform, brokenReason: reason, observedAt: refused)
        } catch {
            logger.error("cannot mark credential broken", ["business.id": String(businessID), "error": "\(error)"])
            marked = true  // still hold its pushes back in this process
        }
        guard marked else { return false }
        let first = state.withLock { state -> Bool in
            defer { state.broken[key] = "credential broken: " + reason }
            return state.broken[key] == nil
        }
        if first {
            logger.error(
                "push credential refused; its deliveries wait until it is replaced",
                ["business.id": String(businessID), "provider": platform.rawValue, "reason": reason])
        }
        return true
    }

    /// Writes the answers waiting, when `force`d or when they have waited `recordDelay` or filled `recordBatch`.
    private func flush(force: Bool = true) {
        let now = ContinuousClock.now
        let batch = state.withLock { state -> [DeliveryCompletion] in
            guard
                let recordIn = state.recordIn(
                    delay: configuration.recordDelay, batch: configuration.recordBatch, now: now),
                force || recordIn <= .zero
            else { return [] }
            defer {
                state.completions.removeAll(keepingCapacity: true)
                state.firstCompletion = nil
            }
            return state.completions
        }
        guard !batch.isEmpty else { return }
        do {
            try store.completeDeliveries(batch, at: clock.now())
        } catch {
            // Keep them: a later flush writes them. If the process dies first, the leases run out and the jobs are resent.
            logger.error(
                "cannot record delivery outcomes; will retry",
                ["delivery.count": String(batch.count), "error": "\(error)"])
            state.withLock { state in
                state.completions.insert(contentsOf: batch, at: 0)
                state.firstCompletion = state.firstCompletion ?? now
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private let counters = Mutex<[String: Counter]>([:])
    private let latencies = Mutex<[String: Histogram]>([:])

    private func latency(_ platform: PushPlatform) -> Histogram {
        if let histogram = latencies.withLock({ $0[platform.rawValue] }) { return histogram }
        let histogram = metrics.histogram(
            "herald_push_send_duration_seconds", help: "Time from handing a push to its provider to its answer.",
            labels: ["provider": platform.rawValue])
        latencies.withLock { $0[platform.rawValue] = histogram }
        return histogram
    }

    private func count(_ platform: PushPlatform, _ outcome: String) {
        let key = platform.rawValue + "/" + outcome
        if let counter = counters.withLock({ $0[key] }) { return counter.increment() }
        let counter = metrics.counter(
            "herald_push_sends_total", help: "Delivery attempts by provider and outcome.",
            labels: ["provider": platform.rawValue, "outcome": outcome])
        counters.withLock { $0[key] = counter }
        counter.increment()
    }

    private static func key(_ businessID: Int64, _ platform: PushPlatform) -> String { "\(businessID)/\(platform)" }
}

/// A value worked out at most once per `lifetime`: what several readers asking at nearly the same moment share.
private final class RecentValue<Value: Sendable>: Sendable {
    private let lifetime: Duration
    private let compute: @Sendable () -> Value
    private let latest = Mutex<(at: ContinuousClock.Instant, value: Value)?>(nil)

    init(lifetime: Duration, _ compute: @escaping @Sendable () -> Value) {
        self.lifetime = lifetime
        self.compute = compute
    }

    func get() -> Value {
        let now = ContinuousClock.now
        if let latest = latest.withLock({ $0 }), now - latest.at < lifetime { return latest.value }
        let value = compute()
        latest.withLock { $0 = (now, value) }
        return value
    }
}

/// Set once a provider's `send` has returned: an answer that comes before it was given without a request.
private final class SendReturned: Sendable {
    let flag = Atomic<Bool>(false)
}
