import Foundation
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldDeliveryPorts
import Synchronization

/// The delivery workers, as a service: claims due jobs from the queue under a lease, hands them to the providers,
/// and writes each outcome back — retry with backoff, prune a dead token, wait on a broken credential. What to do
/// is decided by `DeliveryStateMachine`; this runner performs its steps and feeds it the answers.
///
/// Nothing is lost if the process dies: unfinished jobs keep their lease in the store and are claimed again when
/// it runs out (at once by this node when it restarts: `run` first takes its own leases back). What is sent twice
/// after a crash is what was in flight (the app dedupes on the payload's `n`); jobs claimed ahead are not sent yet
/// and cost nothing on a restart. Sends in flight are bounded by `concurrency` only, a memory bound far above what
/// a provider's streams take at once: a push then waits only for a free stream of its credential's connections,
/// and a slow answer holds its own stream, never a place in a window shared with every other push. Enqueueing wakes
/// it (the queue tells it); so does a credential being replaced.
package final class DeliveryEngine: Worker {
    /// Tuning.
    package struct Configuration: Sendable {
        /// This node's stable id, the owner of its leases (kept in the data dir).
        package var owner: String
        /// Most sends in flight, over every provider and credential (each push takes a stream of its credential's
        /// connections; beyond their streams it waits in the HTTP/2 client's queue).
        package var concurrency: Int = 4096
        /// nil (the default): `concurrency` sends in flight whatever the round trips. A number: the window adapts
        /// between it and `concurrency` to what the providers answer at (`ConcurrencyLimit`) — fewer pushes sent
        /// twice after a crash, at the price of throughput when some answers are slow.
        package var minimumConcurrency: Int?
        /// The least a credential's congestion window shrinks to when its provider sheds load (`CongestionWindow`:
        /// between this and `concurrency`).
        package var credentialFloor: Int = 16
        /// Where a credential's window starts, growing from there while answers succeed (`CongestionWindow`'s slow
        /// start: it doubles each round trip until the provider first refuses), unless a node held one for it within
        /// `windowMemory` (kept in the `CredentialWindowStore`): then it starts from that.
        package var credentialInitialWindow: Int = CongestionWindow.initial
        /// How long a credential's window, as a node last held it, is where the next node (or run) starts from.
        package var windowMemory: Duration = .seconds(3600)
        /// How often the windows this node holds are kept (those that changed, and each it still sends with at least
        /// every half `windowMemory`), and the ones the nodes kept read.
        package var windowSync: Duration = .seconds(10)
        /// Most FCM sends a minute per Firebase project (Google's quota: 600,000 by default), unless the project's
        /// own is set in the `QuotaLedger`; nil sends as fast as answers come. Shared by the nodes through the
        /// ledger, which leases each the next second or so of the project's time; paced to 98 % of it
        /// (`QuotaAllowance`). Beyond it pushes wait in the engine for their turn.
        package var fcmQuotaPerMinute: Int? = 600_000
        /// Most jobs claimed per query.
        package var claimBatch: Int = 500
        /// How long a claim is held.
        package var lease: Duration = .seconds(60)
        /// Backoff for retryable failures.
        package var retry = RetryPolicy()
        /// How long jobs wait before looking at a broken credential again.
        package var brokenCredentialWait: Duration = .seconds(600)
        /// How often the queue is polled when nothing wakes the engine (retries coming due, other nodes' jobs).
        package var idlePoll: Duration = .milliseconds(500)
        /// How long after its creation Apple and Google may still deliver a push to an offline device.
        package var expiration: Duration = .seconds(86_400)
        /// Answers are written together, at the latest this long after the first of them arrived…
        package var recordDelay: Duration = .milliseconds(10)
        /// …or as soon as this many are waiting. An answer not yet written when the process dies is sent again.
        package var recordBatch: Int = 512
        /// On stop, how long sends in flight may take to answer before their jobs are handed back unanswered.
        package var gracePeriod: Duration = .seconds(10)

        /// A configuration for `owner`.
        package init(owner: String) { self.owner = owner }
    }

    private let queue: any DeliveryQueue
    private let quota: any QuotaLedger
    private let windows: any CredentialWindowStore
    private let providers: [PushPlatform: any PushProvider]
    private let clock: WallClock
    private let configuration: Configuration
    private let logger: Logger
    private let machine: Mutex<DeliveryStateMachine>
    private let wakeup = Wakeup()
    private let meters: DeliveryMeters

    /// An engine over `queue` with one provider per platform, sharing FCM's quota through `quota` and the credentials'
    /// congestion windows through `windows` (the database's in a server, shared by the nodes). `random` (0..<1)
    /// jitters retry delays.
    package init(
        queue: any DeliveryQueue, providers: [any PushProvider], clock: WallClock, configuration: Configuration,
        logger: Logger, metrics: MetricsRegistry, quota: any QuotaLedger = MemoryQuotaLedger(),
        windows: any CredentialWindowStore = MemoryWindowStore(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.queue = queue
        self.quota = quota
        self.windows = windows
        self.providers = Dictionary(uniqueKeysWithValues: providers.map { ($0.platform, $0) })
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        let machine = DeliveryStateMachine(
            configuration: configuration, platforms: Set(providers.map(\.platform)), random: random)
        self.machine = Mutex(machine)
        meters = DeliveryMeters(metrics: metrics, queue: queue, clock: clock)
        meters.observe { [weak self] in self?.machine.withLock { ($0.inFlight, $0.window.limit) } ?? (0, 0) }
        queue.onJobsAdded { [weak self] in self?.wake() }
    }

    /// Takes back this node's leases from a previous run (so a restart resumes at once), delivers until asked to
    /// stop, then stops: lets sends in flight answer (up to the grace period), writes every answer, hands every
    /// unfinished claim back to the queue and shuts the providers down.
    package func run() async throws {
        let released = try queue.handBack(owner: configuration.owner, at: clock.now())
        if released > 0 {
            logger.notice("resuming deliveries left by the previous run", ["delivery.count": String(released)])
        }
        let broken = try queue.brokenCredentials()
        machine.withLock { $0.knownBroken(broken) }
        GracefulShutdown.onRequest { [wakeup] in wakeup.signal() }
        var nextWindowSync = clock.now()
        while !GracefulShutdown.isRequested {
            if clock.now() >= nextWindowSync {
                syncWindows(refreshBefore: clock.now().adding(.zero - configuration.windowMemory / 2))
                nextWindowSync = clock.now().adding(configuration.windowSync)
            }
            let step = machine.withLock { $0.step(at: clock.now()) }
            let (limit, idle, sleepUntil, leases) = (step.claim, step.isIdle, step.sleepUntil, step.quotaLeases)
            perform(consume step)
            if !leases.isEmpty { lease(leases) }
            if let limit {
                claim(limit)
            } else if idle {
                await wakeup.wait(until: min(sleepUntil ?? nextWindowSync, nextWindowSync), clock: clock)
            }
        }
        await drain(until: clock.now().adding(Task.isCancelled ? .zero : configuration.gracePeriod))
        syncWindows(refreshBefore: clock.now().adding(.milliseconds(1)))
    }

    /// Keeps the windows this node holds that changed since it last kept them (and those it sent with that it last
    /// kept before `refreshBefore`), and reads those the nodes kept within `windowMemory`: where this node starts a
    /// credential it has not sent for yet. Each half fails alone, with a warning: a window not kept is kept at the
    /// next sync; while none can be read, credentials new to this node start from the windows last read (at 64, in
    /// slow start, where none was).
    private func syncWindows(refreshBefore: Timestamp) {
        let now = clock.now()
        do {
            let keep = machine.withLock { $0.windowsToKeep(at: now, refreshBefore: refreshBefore) }
            try windows.save(keep)
            machine.withLock { $0.windowsKept(keep) }
        } catch {
            logger.warning("cannot keep the credentials' congestion windows", ["error": "\(error)"])
        }
        do {
            let kept = try windows.windows(since: now.adding(.zero - configuration.windowMemory))
            machine.withLock { $0.knownWindows(kept) }
        } catch {
            logger.warning("cannot read the credentials' congestion windows", ["error": "\(error)"])
        }
    }

    /// Tells the engine new jobs may be due.
    package func wake() {
        machine.withLock { $0.jobsAdded() }
        wakeup.signal()
    }

    /// What paces `businessID`'s pushes on this node now, if anything: a spent quota, or a provider that shed load
    /// in the last minute or asked to slow down (what a campaign's report says paces it).
    package func pacing(businessID: Int64) -> CredentialPacing? {
        let now = clock.now()
        return machine.withLock { $0.pacing(businessID: businessID, at: now, recent: .seconds(60)) }
    }

    /// A business's credential was replaced: forget it was broken, drop cached tokens, make waiting jobs due.
    package func credentialChanged(businessID: Int64, platform: PushPlatform) {
        machine.withLock { $0.credentialChanged(businessID: businessID, platform: platform) }
        providers[platform]?.credentialChanged(businessID: businessID)
        do {
            try queue.reschedule(businessID: businessID, platform: platform, dueAt: clock.now())
        } catch {
            logger.error(
                "cannot reschedule waiting deliveries", ["business.id": String(businessID), "error": "\(error)"])
        }
        wakeup.signal()
    }

    // MARK: - Steps

    private func perform(_ step: consuming DeliveryStateMachine.Step) {
        for key in step.newCredentials {
            meters.observe(credential: key) { [weak self] in self?.machine.withLock { $0.reading(key) } }
        }
        for (platform, label) in step.settled { meters.count(platform, label) }
        // Each push moved out of the step to its provider, in order: a copy would retain every string of it here
        // and release them all again when the step goes. Reversed in the array's buffer, whose swaps move the
        // elements (the array's own swaps copy them).
        step.sends.withUnsafeMutableBufferPointer { $0.reverse() }
        while let (job, push) = step.sends.popLast() { send(job, push) }
        if !step.record.isEmpty { record(step.record) }
    }

    private func claim(_ limit: Int) {
        let now = clock.now()
        let leaseUntil = now.adding(configuration.lease)
        do {
            let jobs = try queue.claim(owner: configuration.owner, limit: limit, leaseUntil: leaseUntil, at: now)
            machine.withLock { $0.claimed(jobs, requested: limit, leaseUntil: leaseUntil, at: now) }
        } catch {
            logger.error("cannot claim deliveries", ["error": "\(error)"])
            machine.withLock { $0.claimFailed(at: now) }
        }
    }

    /// Leases the next stretch of each credential's send quota from the ledger (a business without an FCM credential
    /// here has no project to share: it gets one of its own).
    private func lease(_ keys: [DeliveryStateMachine.CredentialKey]) {
        let perMinute = configuration.fcmQuotaPerMinute ?? 1
        for key in keys {
            let now = clock.now()
            let duration = machine.withLock { $0.quotaLeaseDuration(for: key) }
            do {
                let grant =
                    try quota.lease(
                        businessID: key.businessID, duration: duration, defaultPerMinute: perMinute, at: now)
                    ?? QuotaGrant(start: now, end: now.adding(duration), perMinute: perMinute)
                machine.withLock { $0.quotaGranted(grant, for: key) }
            } catch {
                logger.error(
                    "cannot lease send quota; its pushes wait",
                    ["business.id": String(key.businessID), "error": "\(error)"])
                machine.withLock { $0.quotaLeaseFailed(for: key, at: now) }
            }
        }
    }

    private func record(_ batch: [DeliveryCompletion]) {
        let now = clock.now()
        do {
            try queue.record(batch, at: now)
        } catch {
            logger.error(
                "cannot record delivery outcomes; will retry",
                ["delivery.count": String(batch.count), "error": "\(error)"])
            machine.withLock { $0.recordFailed(batch, at: now) }
        }
    }

    private func send(_ job: ClaimedDelivery, _ push: consuming OutgoingPush) {
        guard let provider = providers[job.platform] else { return }
        let sending = Sending(
            engine: self, job: job, sentAt: clock.now(), outstanding: machine.withLock { $0.inFlight })
        provider.send(push) { result in sending.answered(result) }
        sending.returned.store(true, ordering: .releasing)
    }

    /// A push on its way to its provider: what its answer is recorded with. Its completion captures this one
    /// object, which then serves as the closure's context (a closure capturing several values allocates one).
    private final class Sending: Sendable {
        let engine: DeliveryEngine
        let job: ClaimedDelivery
        let sentAt: Timestamp
        let started = ContinuousClock.now
        /// Pushes in flight when it was sent.
        let outstanding: Int
        /// Set once the provider's `send` returned.
        let returned = Atomic<Bool>(false)

        init(engine: DeliveryEngine, job: ClaimedDelivery, sentAt: Timestamp, outstanding: Int) {
            self.engine = engine
            self.job = job
            self.sentAt = sentAt
            self.outstanding = outstanding
        }

        func answered(_ result: PushResult) {
            // An answer given before `send` returned (payload too large, no credential) made no round trip: it
            // says nothing about the provider's speed and must not teach the window.
            let roundTrip = returned.load(ordering: .acquiring) ? ContinuousClock.now - started : nil
            engine.answer(job, result, sentAt: sentAt, roundTrip: roundTrip, outstanding: outstanding)
        }
    }

    private func answer(
        _ job: ClaimedDelivery, _ result: PushResult, sentAt: Timestamp, roundTrip: Duration?, outstanding: Int
    ) {
        var marked: Bool?
        if case .credentialRejected(let reason, let version) = result,
            machine.withLock({ $0.needsCredentialCheck(job, result) })
        {
            marked = markBroken(job, reason: reason, refused: version ?? sentAt)
        }
        let answered = machine.withLock { machine in
            machine.answered(
                job, result, sentAt: sentAt, roundTrip: roundTrip, outstanding: outstanding,
                credentialMarkedBroken: marked, at: clock.now())
        }
        meters.answered(job.platform, answered.label, roundTrip: roundTrip)
        if logger.isEnabled(.debug) {
            logger.debug(
                "push answered",
                [
                    "delivery.id": String(job.id), "notification.id": String(job.notification.id),
                    "provider": job.platform.rawValue, "outcome": answered.label,
                ])
        }
        if answered.wake { wakeup.signal() }
    }

    /// Marks `job`'s credential broken unless it was replaced after `refused`; true when it is broken (or the
    /// store could not say: its pushes are held back in this process anyway).
    private func markBroken(_ job: ClaimedDelivery, reason: String, refused: Timestamp) -> Bool {
        let businessID = job.notification.businessID
        do {
            guard
                try queue.markCredentialBroken(
                    businessID: businessID, platform: job.platform, reason: reason, observedAt: refused)
            else { return false }
            logger.error(
                "push credential refused; its deliveries wait until it is replaced",
                ["business.id": String(businessID), "provider": job.platform.rawValue, "reason": reason])
        } catch {
            logger.error("cannot mark credential broken", ["business.id": String(businessID), "error": "\(error)"])
        }
        return true
    }

    /// Stops: no new sends; waits for those in flight until `deadline`, writing answers as they come; then
    /// writes what is left, hands every unfinished claim back and shuts the providers down.
    private func drain(until deadline: Timestamp) async {
        machine.withLock { $0.stop() }
        while true {
            let step = machine.withLock { $0.step(at: clock.now()) }
            let (finished, recorded, sleepUntil) = (step.finished, !step.record.isEmpty, step.sleepUntil)
            perform(consume step)
            if finished || clock.now() >= deadline { break }
            if !recorded {
                await wakeup.wait(until: min(sleepUntil ?? deadline, deadline), clock: clock)
            }
        }
        do {
            let released = try queue.handBack(owner: configuration.owner, at: clock.now())
            if released > 0 { logger.notice("handed unfinished deliveries back", ["delivery.count": String(released)]) }
        } catch {
            logger.error("cannot hand deliveries back; their leases will run out", ["error": "\(error)"])
        }
        for provider in providers.values { provider.shutdown() }
    }
}
