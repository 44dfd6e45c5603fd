import HeraldModel
import HeraldDeliveryPorts

/// The delivery engine's decisions as a value: which claimed job goes out and which is settled without a send,
/// what an answer means for its job (delivered, retried with backoff, pruned, parked on a broken credential),
/// when answers are written, when to claim more, how long to sleep. No I/O, no threads and no clock of its own:
/// the runner (`DeliveryEngine`) feeds it events with the time, and performs the `Step`s it returns.
struct DeliveryStateMachine {
    /// What the runner does next.
    struct Step {
        /// Pushes to hand to their providers now.
        var sends: [(job: ClaimedDelivery, push: OutgoingPush)] = []
        /// Jobs settled without a send (the metrics' outcome label).
        var settled: [(platform: PushPlatform, label: String)] = []
        /// Answers to write now.
        var record: [DeliveryCompletion] = []
        /// Claim up to this many jobs, then take the next step at once.
        var claim: Int?
        /// Nothing to do until this time, or until woken (nil: until woken).
        var sleepUntil: Timestamp?
        /// Stopped: nothing is in flight and every answer has been handed over to be written.
        var finished = false
        /// Credentials sending for the first time (their series in `/metrics`).
        var newCredentials: [CredentialKey] = []
        /// Credentials whose next stretch of send quota to lease from the `QuotaLedger` now (`quotaGranted`), then
        /// take the next step at once.
        var quotaLeases: [CredentialKey] = []

        /// Nothing to send, settle, write or lease: the runner sleeps (unless it is to claim).
        var isIdle: Bool { sends.isEmpty && record.isEmpty && settled.isEmpty && quotaLeases.isEmpty }
    }

    /// What an answer came to.
    struct Answered {
        /// The metrics' outcome label (`delivered`, `retried`, `pruned`, `failed`, `waiting`).
        var label: String
        /// Whether the runner should take a step now (room to send, a first answer to time, a full batch).
        var wake: Bool
    }

    let configuration: DeliveryEngine.Configuration
    /// The platforms a provider serves (two at most: a list, which every push looks through without hashing).
    let platforms: [PushPlatform]
    let random: @Sendable () -> Double

    /// Jobs claimed and not yet sent, with their lease's end, the next one last.
    var pending: [(job: ClaimedDelivery, leaseUntil: Timestamp)] = []
    var inFlight = 0
    var window: ConcurrencyLimit
    var completions: [DeliveryCompletion] = []
    var firstCompletionAt: Timestamp?
    /// Credentials known broken (or missing), with the reason.
    var broken: [CredentialKey: String] = [:]
    /// Credentials held back here: the provider asked to slow down (an answer with `Retry-After`), or this node
    /// leases no connection for them (`PushResult.leaseless`). Nothing of theirs is sent before the hold's end;
    /// every other credential's pushes go on.
    var throttled: [CredentialKey: Hold] = [:]
    /// The last claim: how many jobs it brought, and how many of them went back unsent because this node leases no
    /// connection for their credential.
    var lastClaim = (jobs: 0, leaseless: 0)
    /// Claims paused for a credential this node leased no connection for: the next claim is a small one, enough to
    /// find out whether it leases one now.
    private var probing = false
    /// Each credential's congestion window and the jobs claimed for it that wait for room in it.
    var credentials: [CredentialKey: CredentialState] = [:]
    /// The windows the nodes kept for credentials (`CredentialWindowStore`): where a credential new to this node
    /// starts. Set by `knownWindows`.
    var storedWindows: [CredentialKey: CredentialWindow] = [:]
    /// Each credential's window as this node last kept it (`windowsToKeep`).
    var keptWindows: [CredentialKey: CredentialWindow] = [:]
    /// Jobs held in `credentials`, all together.
    var heldCount = 0
    /// Jobs claimed and not sent yet: held for room in a window, or not looked at yet.
    var unsentCount: Int { pending.count + heldCount }
    /// Campaigns' messages as read from their JSON, by campaign id (see `campaignTemplate`).
    private var campaignTemplates: [Int64: HeraldMessage?] = [:]
    /// The queue had nothing more when last asked; asked again after this time, or when jobs are added.
    var drainedUntil: Timestamp?
    /// A claim failed: not tried again before this time.
    var claimPausedUntil: Timestamp?
    var stopping = false
    /// The last step said to sleep and nothing has woken the runner since.
    var asleep = false

    init(
        configuration: DeliveryEngine.Configuration, platforms: Set<PushPlatform>,
        random: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.platforms = Array(platforms)
        self.random = random
        let lower = max(
            1, min(configuration.minimumConcurrency ?? configuration.concurrency, configuration.concurrency))
        window = ConcurrencyLimit(range: lower...max(1, configuration.concurrency), initial: lower * 2)
    }

    // MARK: - Decisions

    /// What to do at `now`: refill the window first (an answer waiting for a write transaction would lengthen
    /// every round trip), then write the answers that are due, then claim ahead, else sleep.
    mutating func step(at now: Timestamp) -> Step {
        var step = Step()
        asleep = false
        if !stopping {
            // What waited for room in its credential's window goes first: it was claimed before the rest.
            if heldCount > 0 { releaseHeld(at: now, into: &step) }
            while inFlight < window.limit, let next = pending.popLast() {
                dispatch(next.job, leaseUntil: next.leaseUntil, at: now, into: &step)
            }
        }
        let recordAt = firstCompletionAt.map {
            completions.count >= configuration.recordBatch || stopping ? now : $0.adding(configuration.recordDelay)
        }
        if let recordAt, recordAt <= now {
            step.record = completions
            completions.removeAll(keepingCapacity: true)
            firstCompletionAt = nil
            lookAgain(forRetriesIn: step.record)
        }
        if stopping {
            step.finished = inFlight == 0 && completions.isEmpty
            if !step.finished { step.sleepUntil = firstCompletionAt?.adding(configuration.recordDelay) }
            asleep = !step.finished && step.sends.isEmpty && step.record.isEmpty
            return step
        }
        // Keep several windows claimed ahead: claims are then few and large, and what waits here was never sent,
        // so a crash costs it nothing. Not more, so that it is sent long before its lease runs out.
        let ahead = min(configuration.claimBatch, max(8 * window.limit, 64))
        if lastClaim.leaseless * 2 > lastClaim.jobs {
            // Most of the last claim went back unsent: this node leases no connection for their credential. Claiming
            // again before it may look for one would only hand the next jobs back too, each claimed and written
            // twice for nothing; the nodes that lease the connections take them meanwhile.
            let until = throttled.values.filter { $0.leaseless && $0.until > now }.map(\.until).min()
            if let until, until > claimPausedUntil ?? now { claimPausedUntil = until }
            lastClaim = (0, 0)
            probing = true
        }
        let mayClaim = (drainedUntil.map { now >= $0 } ?? true) && (claimPausedUntil.map { now >= $0 } ?? true)
        // No more than the credentials sending can put in flight soon (`claimTarget`): a job claimed beyond that would
        // wait here, or go back to the queue unsent, a read and two writes for nothing.
        let target = claimTarget(ahead: ahead, at: now)
        if mayClaim && pending.count + heldCount <= target / 2 && pending.count + heldCount < target {
            step.claim = target - pending.count - heldCount
            if probing { step.claim = min(step.claim!, Self.probe) }
            probing = false
            return step
        }
        if step.isIdle {
            // Room to send and jobs waiting would have been sent: nothing to do until an answer, a wake-up, the
            // first answer's record delay, or the next look at a drained queue.
            // A look at the queue or a pause already due says nothing here: it was not taken for want of room, which
            // an answer frees (and wakes the runner for). Slept until, it would wake the runner at once, over and over.
            let deadlines = [
                firstCompletionAt?.adding(configuration.recordDelay), drainedUntil.flatMap { $0 > now ? $0 : nil },
                claimPausedUntil.flatMap { $0 > now ? $0 : nil },
                now.adding(configuration.idlePoll), heldCount > 0 ? nextQuotaTime(after: now) : nil,
            ]
            step.sleepUntil = deadlines.compactMap { $0 }.min()
            asleep = true
        }
        return step
    }

    /// A drained queue is looked at again when the first of the retries about to be written comes due, not at the
    /// next idle poll: a push refused for load is due again at once, and the last refusals of a send would otherwise
    /// wait for the poll. Not before they are written (the runner writes a step's answers before it claims): a claim
    /// made when the answer came would find nothing yet, and leave the queue for the idle poll.
    private mutating func lookAgain(forRetriesIn batch: [DeliveryCompletion]) {
        guard var due = drainedUntil else { return }
        for completion in batch {
            if case .retry(let at, _) = completion.outcome, at < due { due = at }
        }
        drainedUntil = due
    }

    /// Sends `job`, or settles it at once when it can't be sent.
    private mutating func dispatch(
        _ job: ClaimedDelivery, leaseUntil: Timestamp, at now: Timestamp, into step: inout Step
    ) {
        func settle(_ outcome: DeliveryCompletion.Outcome, _ label: String) {
            step.settled.append((job.platform, label))
            add(DeliveryCompletion(job, owner: configuration.owner, outcome: outcome), at: now)
        }
        // Held here so long that its lease is half gone (a provider stalling): hand it back to the queue, due now
        // and with the attempt it never made returned, rather than risk a send racing another claim.
        guard now < leaseUntil.adding(.zero - configuration.lease / 2) else {
            return settle(.wait(until: now, reason: "held past half its lease"), "requeued")
        }
        switch job.campaignStatus {
        case "cancelled": return settle(.skipped(reason: "campaign cancelled"), "skipped")
        case "paused":
            return settle(.wait(until: now.adding(configuration.idlePoll * 120), reason: "campaign paused"), "waiting")
        default: break
        }
        guard job.deviceBelongsToRecipient else {
            return settle(.skipped(reason: "device now signed in as another user"), "skipped")
        }
        guard let token = job.token else {
            return settle(.skipped(reason: "token cleared (logged out or pruned)"), "skipped")
        }
        guard platforms.contains(job.platform) else {
            return settle(.failed(reason: "no provider for \(job.platform)"), "failed")
        }
        let key = Self.key(job.notification.businessID, job.platform)
        if !broken.isEmpty, let reason = broken[key] {
            return settle(parked(job, reason: reason, at: now), "waiting")
        }
        if !throttled.isEmpty, let hold = throttled[key] {
            if now < hold.until {
                // Not an attempt: it goes when the provider said it may (or this node may look for a connection
                // again), with the attempts it had.
                if hold.leaseless { lastClaim.leaseless += 1 }
                let reason = hold.leaseless ? Hold.leaselessReason : "provider asked to slow down"
                return settle(.wait(until: hold.until, reason: reason), "throttled")
            }
            throttled.removeValue(forKey: key)
        }
        if credentials[key] == nil {
            step.newCredentials.append(key)
            let stored = storedWindows[key]
            credentials[key] = CredentialState(
                window: CongestionWindow(
                    range: credentialRange, initial: stored?.limit ?? configuration.credentialInitialWindow,
                    slowStart: !(stored?.found ?? false)))
        }
        guard credentials[key]!.window.hasRoom else {
            return hold(job, leaseUntil: leaseUntil, key: key, at: now, into: &step)
        }
        if job.platform == .fcm, configuration.fcmQuotaPerMinute != nil {
            // The project's quota, leased from the ledger a stretch at a time: a push beyond it waits here for its
            // turn rather than be answered 429.
            if let ready = credentials[key]!.quotaReadyAt, now < ready {
                return hold(job, leaseUntil: leaseUntil, key: key, at: now, into: &step)
            }
            let take = credentials[key]!.quota.take(at: now)
            if credentials[key]!.quota.wantsLease(at: now) {
                credentials[key]!.quota.askedForLease()
                step.quotaLeases.append(key)
            }
            switch take {
            case .taken: break
            case .wait(let until):
                credentials[key]!.quotaReadyAt = until
                return hold(job, leaseUntil: leaseUntil, key: key, at: now, into: &step)
            case .empty:
                // Until the lease asked for is answered (which wakes the runner), or a while if it never is.
                credentials[key]!.quotaReadyAt = now.adding(configuration.idlePoll)
                return hold(job, leaseUntil: leaseUntil, key: key, at: now, into: &step)
            }
        }
        let entry = job.notification
        let background = entry.pushStyle == .background
        // A campaign's message to an SDK install: the campaign's wording, with this entry's id (what the app reports
        // it by). Any other device (an app of the Punchh API) gets the entry as Punchh's own pushes carry one.
        let message = (job.deviceIsInstall ? campaignTemplate(job) : nil).map { template -> HeraldMessage in
            var message = template
            message.id = String(entry.id)
            message.campaignID = entry.campaignID.map(String.init)
            return message
        }
        let push = OutgoingPush(
            deliveryID: job.id, businessID: entry.businessID, token: token, apnsID: job.apnsID,
            content: PushContent(
                notificationID: entry.id, title: entry.title, subtitle: entry.subtitle, body: entry.body,
                sound: entry.sound, badge: background ? nil : job.badge, media: entry.media,
                extras: entry.extras.objectValue ?? [], isBackground: background),
            expiresAt: entry.createdAt.adding(configuration.expiration), collapseID: entry.collapseID,
            attempt: job.attempts, message: message, apnsEnvironment: job.apnsEnvironment)
        inFlight += 1
        credentials[key]!.sent(at: now)
        step.sends.append((job, push))
    }

    /// The bounds of every credential's congestion window: from the floor to `concurrency`.
    private var credentialRange: ClosedRange<Int> {
        let ceiling = max(1, configuration.concurrency)
        return min(ceiling, max(1, configuration.credentialFloor))...ceiling
    }

    /// Keeps `job` until its credential's window has room. Up to a few windows' worth are kept (they go as answers
    /// free room, oldest first); beyond that a job goes back to the queue, its attempt not counted, to be claimed
    /// again later: a credential the provider holds to a narrow window must not fill this node with its jobs.
    mutating func hold(
        _ job: ClaimedDelivery, leaseUntil: Timestamp, key: CredentialKey, at now: Timestamp, into step: inout Step
    ) {
        guard credentials[key]!.heldCount < max(2 * sendableSoon(key, credentials[key]!), 64) else {
            step.settled.append((job.platform, "deferred"))
            let wait = DeliveryCompletion.Outcome.wait(
                until: now.adding(configuration.idlePoll * 2), reason: "credential at its limit")
            add(DeliveryCompletion(job, owner: configuration.owner, outcome: wait), at: now)
            return
        }
        credentials[key]!.held.append((job, leaseUntil))
        heldCount += 1
    }

    /// The size of a claim that finds out whether this node leases a connection now (`probing`).
    static let probe = 16

    /// Holds `key`'s pushes back until `until`, unless a hold already runs longer.
    mutating func holdBack(_ key: CredentialKey, until: Timestamp, leaseless: Bool, at now: Timestamp) {
        if until > throttled[key]?.until ?? now { throttled[key] = Hold(until: until, leaseless: leaseless) }
    }

    /// When the first credential whose jobs wait for its quota may send again.
    private func nextQuotaTime(after now: Timestamp) -> Timestamp? {
        credentials.values.compactMap { $0.heldCount > 0 ? $0.quotaReadyAt : nil }.filter { $0 > now }.min()
    }

    /// Sends the held jobs whose credentials have room now, oldest first.
    private mutating func releaseHeld(at now: Timestamp, into step: inout Step) {
        // The keys first: a view of the dictionary held while it is changed would copy it.
        let waiting = credentials.compactMap { $0.value.heldCount > 0 ? $0.key : nil }
        for key in waiting {
            while inFlight < window.limit, credentials[key]!.window.hasRoom,
                credentials[key]!.quotaReadyAt.map({ now >= $0 }) ?? true, let next = credentials[key]!.takeHeld()
            {
                heldCount -= 1
                dispatch(next.job, leaseUntil: next.leaseUntil, at: now, into: &step)
            }
        }
    }

    /// The message of `job`'s campaign, read from its JSON once per campaign (a campaign's message never changes
    /// once it is created) rather than once per push. Up to 64 campaigns are kept; then they are all forgotten and
    /// read again as their pushes come.
    private mutating func campaignTemplate(_ job: ClaimedDelivery) -> HeraldMessage? {
        guard let json = job.campaignMessage else { return nil }
        guard let campaignID = job.notification.campaignID else { return HeraldMessage(json: json) }
        if let template = campaignTemplates[campaignID] { return template }
        if campaignTemplates.count >= 64 { campaignTemplates.removeAll(keepingCapacity: true) }
        let template = HeraldMessage(json: json)
        campaignTemplates[campaignID] = template
        return template
    }

    /// A job that can't go out until its business's credential is set or fixed: it waits, unless it is past the
    /// time Apple or Google would still deliver it anyway.
    func parked(_ job: ClaimedDelivery, reason: String, at now: Timestamp) -> DeliveryCompletion.Outcome {
        let expires = job.notification.createdAt.adding(configuration.expiration)
        guard now < expires else { return .failed(reason: "expired while waiting: \(reason)") }
        return .wait(until: min(expires, now.adding(configuration.brokenCredentialWait)), reason: reason)
    }

    mutating func add(_ completion: DeliveryCompletion, at now: Timestamp) {
        completions.append(completion)
        if firstCompletionAt == nil { firstCompletionAt = now }
    }

    /// What holds back a business's pushes on this node at `now` (nil: nothing): `.quota` while an FCM project's
    /// quota is spent (its bucket empty, or FCM's 429 asked to wait), `.provider` while its provider shed load
    /// within `recent` (its window shrank) or asked to slow down (`Retry-After`); first of all `.credential` while one
    /// of its credentials is missing or refused (its pushes wait for the operator, not for time).
    func pacing(businessID: Int64, at now: Timestamp, recent: Duration) -> CredentialPacing? {
        var provider = false
        if platforms.contains(where: { broken[Self.key(businessID, $0)] != nil }) { return .credential }
        for platform in platforms {
            let key = Self.key(businessID, platform)
            // A node leasing no connection for the credential is not paced by the provider: others send for it.
            if let hold = throttled[key], !hold.leaseless, now < hold.until {
                if platform == .fcm { return .quota }
                provider = true
            }
            guard let state = credentials[key] else { continue }
            if let ready = state.quotaReadyAt, now < ready { return .quota }
            if let shrunk = state.window.shrunkAt, now.since(shrunk) < recent { provider = true }
        }
        return provider ? .provider : nil
    }

    /// One credential's figures for `/metrics`: its window, what it has in flight, its refusals for load, and its
    /// jobs waiting here for room (nil: not sending yet).
    func reading(_ key: CredentialKey) -> CredentialReading? {
        credentials[key].map {
            CredentialReading(
                limit: $0.window.limit, inFlight: $0.window.inFlight, refusals: $0.window.refusals,
                waiting: $0.heldCount)
        }
    }
}
