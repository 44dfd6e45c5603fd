import HeraldDeliveryPorts
import HeraldModel

/// What happens to the engine, told to its state machine: claims, answers, credentials and quotas changing, a stop.
extension DeliveryStateMachine {
    /// Credentials the store knows broken when the engine starts: their jobs wait.
    mutating func knownBroken(_ credentials: [BrokenCredential]) {
        for credential in credentials {
            broken[Self.key(credential.businessID, credential.platform)] = "credential broken: " + credential.reason
        }
    }

    /// Jobs were added to the queue (here or on another node): look again at once.
    mutating func jobsAdded() {
        drainedUntil = nil
        asleep = false
    }

    /// A claim of `requested` jobs returned `jobs`, leased until `leaseUntil`.
    mutating func claimed(_ jobs: [ClaimedDelivery], requested: Int, leaseUntil: Timestamp, at now: Timestamp) {
        pending.insert(contentsOf: jobs.reversed().map { ($0, leaseUntil) }, at: 0)
        drainedUntil = jobs.count < requested ? now.adding(configuration.idlePoll) : nil
        lastClaim = (jobs.count, 0)
    }

    /// A claim failed (the database is unavailable): try again after a pause.
    mutating func claimFailed(at now: Timestamp) {
        claimPausedUntil = now.adding(configuration.idlePoll)
    }

    /// Writing `batch` failed: keep it to write with the next one (if the process dies first, the leases run
    /// out and the jobs are sent again).
    mutating func recordFailed(_ batch: [DeliveryCompletion], at now: Timestamp) {
        completions.insert(contentsOf: batch, at: 0)
        // Written again after a pause, not on every step while the database is down.
        firstCompletionAt = now.adding(.milliseconds(50))
    }

    /// A business's credential for `platform` was replaced: its jobs may go again.
    mutating func credentialChanged(businessID: Int64, platform: PushPlatform) {
        broken.removeValue(forKey: Self.key(businessID, platform))
        jobsAdded()
    }

    /// The ledger granted `key`'s credential the next stretch of its send quota.
    mutating func quotaGranted(_ grant: QuotaGrant, for key: CredentialKey) {
        credentials[key]?.quota.granted(grant)
        credentials[key]?.quotaReadyAt = nil
        asleep = false
    }

    /// The ledger could not lease `key`'s credential its quota: its pushes wait, and it is asked again after a pause.
    mutating func quotaLeaseFailed(for key: CredentialKey, at now: Timestamp) {
        credentials[key]?.quota.leaseFailed(retryAt: now.adding(configuration.idlePoll))
        credentials[key]?.quotaReadyAt = now.adding(configuration.idlePoll)
    }

    /// How long a stretch of `key`'s send quota to lease (`QuotaAllowance.leaseDuration`).
    func quotaLeaseDuration(for key: CredentialKey) -> Duration {
        let perMinute = configuration.fcmQuotaPerMinute ?? 1
        return credentials[key]?.quota.leaseDuration(defaultPerMinute: perMinute) ?? QuotaAllowance.leaseLength
    }

    /// Stop claiming and sending; finish when what is in flight has answered.
    mutating func stop() {
        stopping = true
        asleep = false
    }

    /// Whether a refusal of `job`'s credential needs the store's word (is it the stored credential that was
    /// refused?) before `answered` can settle it: the credential is not known broken here yet.
    func needsCredentialCheck(_ job: ClaimedDelivery, _ result: PushResult) -> Bool {
        guard case .credentialRejected = result else { return false }
        return broken[Self.key(job.notification.businessID, job.platform)] == nil
    }

    /// The provider's id for an accepted push as the store keeps it: nil when Apple answered with the `apns-id` it
    /// was sent (compared without case: a UUID's hex may come back either way), which the row already holds.
    static func storedMessageID(_ messageID: String?, of job: ClaimedDelivery) -> String? {
        guard job.platform == .apns, let messageID else { return messageID }
        return messageID == job.apnsID || messageID.lowercased() == job.apnsID.lowercased() ? nil : messageID
    }

    /// The provider answered `job`, sent at `sentAt`. `roundTrip` is how long the answer took (nil when it came
    /// before `send` returned: no request was made, so it says nothing of the provider's speed);
    /// `outstanding` how many were in flight when it was sent. For a credential refusal `needsCredentialCheck`
    /// asked about, `credentialMarkedBroken` is the store's answer (false: the credential was replaced since).
    mutating func answered(
        _ job: ClaimedDelivery, _ result: PushResult, sentAt: Timestamp, roundTrip: Duration?, outstanding: Int,
        credentialMarkedBroken: Bool? = nil, at now: Timestamp
    ) -> Answered {
        let key = Self.key(job.notification.businessID, job.platform)
        let outcome: DeliveryCompletion.Outcome
        let label: String
        var apnsEnvironment: String?
        switch result {
        case .delivered(let messageID, let environment):
            (outcome, label) = (.delivered(providerMessageID: Self.storedMessageID(messageID, of: job)), "delivered")
            apnsEnvironment = environment
            credentials[key]?.window.delivered()
        case .shed(let reason):
            // The provider refused it for load: fewer of the credential's pushes at once, and this one again soon
            // (the narrower window, not its backoff, is what keeps it from adding to the load).
            credentials[key]?.window.shed(sentAt: sentAt, at: now)
            if let delay = configuration.retry.delayAfterShed(afterAttempt: job.attempts, random: random()) {
                // A drained queue is looked at again when it comes due, once it is written (`lookAgain`).
                (outcome, label) = (.retry(at: now.adding(delay), reason: reason), "refused")
            } else {
                (outcome, label) = (.failed(reason: "gave up after \(job.attempts) attempts: \(reason)"), "failed")
            }
        case .throttled(let reason, let retryAfter):
            credentials[key]?.window.answered()
            let until = now.adding(max(retryAfter, .milliseconds(1)))
            holdBack(key, until: until, leaseless: false, at: now)
            (outcome, label) = (.wait(until: until, reason: reason), "throttled")
        case .leaseless(let retryAfter):
            credentials[key]?.window.answered()
            let until = now.adding(max(retryAfter, .milliseconds(1)))
            holdBack(key, until: until, leaseless: true, at: now)
            (outcome, label) = (.wait(until: until, reason: Hold.leaselessReason), "throttled")
        case .retryable(let reason, let retryAfter):
            // A provider that names a time to come back (429 or 503 with Retry-After, TooManyProviderTokenUpdates,
            // a GOAWAY with ENHANCE_YOUR_CALM) means the credential, not this push: hold all of its pushes.
            credentials[key]?.window.answered()
            if let retryAfter, retryAfter > .zero {
                holdBack(key, until: now.adding(retryAfter), leaseless: false, at: now)
            }
            if let delay = configuration.retry.delay(
                afterAttempt: job.attempts, retryAfter: retryAfter, random: random())
            {
                (outcome, label) = (.retry(at: now.adding(delay), reason: reason), "retried")
            } else {
                (outcome, label) = (.failed(reason: "gave up after \(job.attempts) attempts: \(reason)"), "failed")
            }
        case .unregistered(let reason, let since):
            (outcome, label) = (.pruned(reason: reason, unregisteredAt: since), "pruned")
            credentials[key]?.window.delivered()
        case .credentialRejected(let reason, _):
            credentials[key]?.window.answered()
            if broken[key] != nil || credentialMarkedBroken ?? true {
                if broken[key] == nil { broken[key] = "credential broken: " + reason }
                (outcome, label) = (parked(job, reason: "credential broken: \(reason)", at: now), "waiting")
            } else {
                // Refused with the key the operator has replaced since: go again, with the new one.
                (outcome, label) = (.retry(at: now, reason: "refused with a replaced credential: \(reason)"), "retried")
            }
        case .notConfigured(let reason):
            credentials[key]?.window.answered()
            // Not an error yet: the operator may add the credential, which makes the job due again at once.
            broken[key] = reason
            (outcome, label) = (parked(job, reason: reason, at: now), "waiting")
        case .failed(let reason):
            (outcome, label) = (.failed(reason: reason), "failed")
            credentials[key]?.window.answered()
        }
        add(
            DeliveryCompletion(job, owner: configuration.owner, outcome: outcome, apnsEnvironment: apnsEnvironment),
            at: now)
        inFlight -= 1
        if let roundTrip { window.record(seconds: roundTrip / .seconds(1), inFlight: outstanding) }
        // Wake the runner to refill the window an eighth at a time, to start the clock of a first answer, to write
        // a full batch, and to finish a stop.
        let limit = window.limit
        var refill = asleep && limit - inFlight >= max(1, limit / 8)
        if asleep && !refill, let credential = credentials[key], credential.heldCount > 0 || drainedUntil == nil {
            // Jobs wait for room in this credential's window, or the queue may hold more of them than were claimed
            // (claims are sized to what the credential can send): take a step once an eighth of it is free.
            let own = credential.window.limit
            refill = own - credential.window.inFlight >= max(1, own / 8)
        }
        let wake =
            refill || completions.count == 1 || completions.count == configuration.recordBatch
            || (stopping && inFlight == 0)
        if wake { asleep = false }
        return Answered(label: label, wake: wake)
    }
}
