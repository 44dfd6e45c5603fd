import HeraldHTTPClient
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import Testing

@testable import HeraldDelivery

/// The engine's rules, driven by hand: events in, steps out, times given. No store, no provider, no waiting.
@Suite("Delivery state machine")
struct DeliveryStateMachineTests {
    static let t0 = Timestamp(milliseconds: 1_800_000_000_000)

    func t(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: Self.t0.milliseconds + milliseconds) }

    func machine(
        concurrency: Int = 64, recordDelay: Duration = .milliseconds(2), recordBatch: Int = 32,
        platforms: Set<PushPlatform> = [.apns], adaptive: Bool = true, credentialWindow: Int? = nil,
        fcmQuota: Int? = 600_000
    ) -> DeliveryStateMachine {
        var configuration = DeliveryEngine.Configuration(owner: "node")
        configuration.concurrency = concurrency
        // Each credential's window starts full unless a test is about how it grows.
        configuration.credentialInitialWindow = credentialWindow ?? concurrency
        configuration.fcmQuotaPerMinute = fcmQuota
        configuration.minimumConcurrency = adaptive ? min(16, concurrency) : nil
        configuration.recordDelay = recordDelay
        configuration.recordBatch = recordBatch
        configuration.idlePoll = .milliseconds(500)
        configuration.lease = .seconds(60)
        configuration.retry = RetryPolicy(maxAttempts: 3, base: .seconds(2), cap: .seconds(600))
        return DeliveryStateMachine(configuration: configuration, platforms: platforms, random: { 0.5 })
    }

    func job(
        _ id: Int64, business: Int64 = 1, attempts: Int = 1, token: String? = "aaaa", platform: PushPlatform = .apns,
        recipient: Bool = true, createdAt: Timestamp? = nil
    ) -> ClaimedDelivery {
        let draft = NotificationDraft(
            businessID: business, userID: 7, kind: .news, event: "news", title: "T", body: "B", extras: ["u": 7])
        return ClaimedDelivery(
            id: id, attempts: attempts, apnsID: "apns-\(id)", platform: platform, token: token, tokenUpdatedAt: nil,
            deviceID: id, deviceBelongsToRecipient: recipient,
            notification: InboxEntry(id: 100 + id, draft: draft, createdAt: createdAt ?? Self.t0).queued, badge: 3)
    }

    @Test("it claims what the window can send, sends it, then claims what the answers will let go next; no more")
    func claimsAheadAndFillsTheWindow() {
        var engine = machine(concurrency: 64)
        let first = engine.step(at: t(0))
        let limit = try! #require(first.claim)
        #expect(limit == 32, "the engine's starting window (twice the minimum), narrower than the credential's")
        engine.claimed((1...Int64(limit)).map { job($0) }, requested: limit, leaseUntil: t(60_000), at: t(0))
        let step = engine.step(at: t(1))
        #expect(step.sends.count == 32)
        #expect(step.sends.map(\.job.id) == Array(1...32), "oldest first")
        #expect(step.sends[0].push.content.badge == 3 && step.sends[0].push.apnsID == "apns-1")
        #expect(engine.inFlight == 32)
        #expect(step.claim == 32, "the places the answers free within a round trip")
        engine.claimed((33...64).map { job($0) }, requested: 32, leaseUntil: t(60_000), at: t(1))
        let idle = engine.step(at: t(2))
        #expect(idle.sends.isEmpty && idle.claim == nil, "the window is full and its next round claimed")
        #expect(idle.sleepUntil == t(502), "nothing to do until an answer, or the idle poll")
    }

    @Test("each campaign's pushes to SDK installs carry its own message, with each entry's own id")
    func campaignMessagesPerCampaign() {
        func campaignJob(_ id: Int64, campaign: Int64, headline: String, message: JSON? = nil, install: Bool = true)
            -> ClaimedDelivery
        {
            let draft = NotificationDraft(
                businessID: 1, userID: 7, kind: .campaign, event: "campaign", title: headline, body: "B",
                campaignID: campaign)
            return ClaimedDelivery(
                id: id, attempts: 1, apnsID: "apns-\(id)", platform: .apns, token: "aaaa", tokenUpdatedAt: nil,
                deviceID: id, deviceBelongsToRecipient: true,
                notification: InboxEntry(id: 100 + id, draft: draft, createdAt: Self.t0).queued, badge: 4,
                campaignMessage: message ?? [
                    "id": "0", "type": "campaign", "headline": .string(headline), "body": "B",
                ],
                deviceIsInstall: install)
        }
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed(
            [
                campaignJob(1, campaign: 5, headline: "Soup"), campaignJob(2, campaign: 6, headline: "Salad"),
                campaignJob(3, campaign: 5, headline: "Soup"), job(4),
            ], requested: 256, leaseUntil: t(60_000), at: t(0))
        let sends = engine.step(at: t(1)).sends
        #expect(sends.map { $0.push.message?.headline } == ["Soup", "Salad", "Soup", nil])
        #expect(sends.map { $0.push.message?.id } == ["101", "102", "103", nil])
        #expect(sends.map { $0.push.message?.campaignID } == ["5", "6", "5", nil])

        // More campaigns than are kept, and one whose message can't be read: each push still gets its own.
        var many = machine(concurrency: 256, adaptive: false)
        _ = many.step(at: t(0))
        var jobs = (1...70).map { campaignJob(Int64($0), campaign: Int64($0), headline: "Campaign \($0)") }
        jobs += (1...70).map { campaignJob(Int64(100 + $0), campaign: Int64($0), headline: "Campaign \($0)") }
        let unreadable = campaignJob(300, campaign: 999, headline: "x", message: ["headline": "no id or type"])
        many.claimed(jobs + [unreadable, unreadable], requested: 256, leaseUntil: t(60_000), at: t(0))
        let all = many.step(at: t(1)).sends
        #expect(all.count == 142)
        #expect(all.prefix(140).map { $0.push.message?.headline } == jobs.map { $0.notification.title })
        #expect(all.suffix(2).map { $0.push.message == nil } == [true, true])

        // A device of a Punchh app (no SDK) gets the entry as Punchh's pushes carry one: badge and `n`.
        var punchh = machine()
        _ = punchh.step(at: t(0))
        punchh.claimed(
            [campaignJob(7, campaign: 5, headline: "Soup", install: false)], requested: 256, leaseUntil: t(60_000),
            at: t(0))
        let sent = try! #require(punchh.step(at: t(1)).sends.first?.push)
        #expect(sent.message == nil)
        #expect(sent.content.badge == 4 && sent.content.notificationID == 107 && sent.content.title == "Soup")
    }

    @Test("jobs that can't go out are settled without a send")
    func unsendableJobsAreSettled() {
        var engine = machine(platforms: [.apns])
        _ = engine.step(at: t(0))
        engine.claimed(
            [
                job(1, recipient: false), job(2, token: nil), job(3, platform: .fcm), job(4),
            ], requested: 256, leaseUntil: t(60_000), at: t(0))
        let step = engine.step(at: t(1))
        #expect(step.sends.map(\.job.id) == [4])
        #expect(step.settled.map(\.label) == ["skipped", "skipped", "failed"])
        let written = engine.step(at: t(10)).record
        #expect(written.map(\.outcome.status) == [.skipped, .skipped, .failed])
    }

    @Test("a job held past half its lease goes back to the queue, due now, its attempt returned")
    func jobsHeldTooLongAreHandedBack() {
        var engine = machine(concurrency: 1)
        _ = engine.step(at: t(0))
        engine.claimed([job(1), job(2)], requested: 256, leaseUntil: t(60_000), at: t(0))
        #expect(engine.step(at: t(1)).sends.map(\.job.id) == [1])
        _ = engine.answered(
            job(1), .delivered(messageID: nil), sentAt: t(1), roundTrip: nil, outstanding: 1, at: t(31_000))
        let step = engine.step(at: t(31_000))
        #expect(step.sends.isEmpty)
        #expect(step.settled.map(\.label) == ["requeued"])
        let written = engine.step(at: t(31_002)).record
        #expect(written.count == 2)
        #expect(written.last?.outcome == .wait(until: t(31_000), reason: "held past half its lease"))
    }

    @Test("answers: delivered, retried with backoff then given up, pruned")
    func answersBecomeOutcomes() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1), job(2, attempts: 3), job(3), job(4)], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        let answers: [(ClaimedDelivery, PushResult)] = [
            (job(1), .delivered(messageID: "m-1")),
            (job(2, attempts: 3), .retryable(reason: "503", retryAfter: nil)),
            (job(3), .retryable(reason: "429", retryAfter: .seconds(30))),
            (job(4), .unregistered(reason: "410 Unregistered", since: t(-5))),
        ]
        let labels = answers.map {
            engine.answered($0.0, $0.1, sentAt: t(0), roundTrip: .milliseconds(5), outstanding: 4, at: t(10)).label
        }
        #expect(labels == ["delivered", "failed", "retried", "pruned"])
        let written = engine.step(at: t(20)).record
        #expect(
            written.map(\.outcome) == [
                .delivered(providerMessageID: "m-1"),
                .failed(reason: "gave up after 3 attempts: 503"),
                .retry(at: t(30_010), reason: "429"),
                .pruned(reason: "410 Unregistered", unregisteredAt: t(-5)),
            ])
        #expect(written.allSatisfy { $0.leaseOwner == "node" })
    }

    @Test("Apple's answer under the apns-id it was sent is not stored twice; any other provider id is kept")
    func providerIDsStored() {
        let apns = job(1)
        #expect(DeliveryStateMachine.storedMessageID("apns-1", of: apns) == nil)
        #expect(
            DeliveryStateMachine.storedMessageID("APNS-1", of: apns) == nil, "a UUID's hex may come back in capitals")
        #expect(DeliveryStateMachine.storedMessageID("other", of: apns) == "other")
        #expect(DeliveryStateMachine.storedMessageID(nil, of: apns) == nil)
        let fcm = job(2, platform: .fcm)
        #expect(DeliveryStateMachine.storedMessageID("apns-2", of: fcm) == "apns-2", "FCM names its own messages")
        #expect(DeliveryStateMachine.storedMessageID(nil, of: fcm) == nil)
    }

    @Test("a refused credential parks its business's pushes without sending them, until it is replaced")
    func aRefusedCredentialParksItsPushes() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1), job(2), job(3, business: 2)], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        let refusal = PushResult.credentialRejected(reason: "403 InvalidProviderToken")
        #expect(engine.needsCredentialCheck(job(1), refusal), "the store decides whether the stored key was refused")
        let answer = engine.answered(
            job(1), refusal, sentAt: t(0), roundTrip: nil, outstanding: 3, credentialMarkedBroken: true, at: t(5))
        #expect(answer.label == "waiting")
        #expect(!engine.needsCredentialCheck(job(2), refusal), "known broken now: no second look")
        #expect(
            engine.answered(job(2), refusal, sentAt: t(0), roundTrip: nil, outstanding: 2, at: t(5)).label == "waiting")
        _ = engine.answered(
            job(3, business: 2), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 1, at: t(5))
        let written = engine.step(at: t(10)).record
        #expect(written[0].outcome == .wait(until: t(600_005), reason: "credential broken: 403 InvalidProviderToken"))

        // A later job of that business is not sent at all; another business's is.
        engine.claimed([job(4), job(5, business: 2)], requested: 256, leaseUntil: t(60_000), at: t(10))
        let step = engine.step(at: t(11))
        #expect(step.sends.map(\.job.id) == [5])
        #expect(step.settled.map(\.label) == ["waiting"])

        // Replaced: its pushes go again.
        engine.credentialChanged(businessID: 1, platform: .apns)
        engine.claimed([job(6)], requested: 256, leaseUntil: t(60_000), at: t(12))
        #expect(engine.step(at: t(12)).sends.map(\.job.id) == [6])
    }

    @Test("a refusal of a key replaced since the push left is retried at once, not a broken credential")
    func aRefusalOfAReplacedKeyIsRetried() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1)], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        let answer = engine.answered(
            job(1), .credentialRejected(reason: "403 InvalidProviderToken"), sentAt: t(0), roundTrip: nil,
            outstanding: 1, credentialMarkedBroken: false, at: t(7))
        #expect(answer.label == "retried")
        #expect(
            engine.step(at: t(10)).record.first?.outcome
                == .retry(at: t(7), reason: "refused with a replaced credential: 403 InvalidProviderToken"))
        #expect(engine.needsCredentialCheck(job(2), .credentialRejected(reason: "x")), "not known broken")
    }

    @Test("a missing credential parks the push, and pushes expire while they wait")
    func missingCredentialsPark() {
        var engine = machine()
        _ = engine.step(at: t(0))
        let old = job(2, createdAt: t(-86_400_001))
        engine.claimed([job(1), old], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        _ = engine.answered(
            job(1), .notConfigured(reason: "business has no APNs credentials"), sentAt: t(0), roundTrip: nil,
            outstanding: 2, at: t(1))
        _ = engine.answered(
            old, .notConfigured(reason: "business has no APNs credentials"), sentAt: t(0), roundTrip: nil,
            outstanding: 1, at: t(1))
        let written = engine.step(at: t(10)).record
        #expect(written[0].outcome == .wait(until: t(600_001), reason: "business has no APNs credentials"))
        #expect(written[1].outcome == .failed(reason: "expired while waiting: business has no APNs credentials"))
    }

    @Test("answers are written in batches, or once the first has waited the record delay")
    func answersAreWrittenInBatches() {
        var engine = machine(recordDelay: .seconds(3600), recordBatch: 5)
        _ = engine.step(at: t(0))
        engine.claimed((1...7).map { job($0) }, requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        var wakes: [Bool] = []
        for id in 1...4 {
            wakes.append(
                engine.answered(
                    job(Int64(id)), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 7, at: t(1)
                ).wake)
        }
        #expect(wakes == [true, false, false, false], "the first answer starts the clock")
        #expect(engine.step(at: t(2)).record.isEmpty, "four answers wait for a fifth")
        #expect(
            engine.answered(job(5), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 3, at: t(3))
                .wake)
        #expect(engine.step(at: t(3)).record.map(\.id) == [1, 2, 3, 4, 5])
        _ = engine.answered(job(6), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 2, at: t(4))
        #expect(engine.step(at: t(5)).record.isEmpty)
        #expect(engine.step(at: t(3_600_003)).record.isEmpty)
        #expect(engine.step(at: t(3_600_004)).record.map(\.id) == [6], "the delay writes a batch never filled")
    }

    @Test("a drained queue is asked again after the idle poll, or at once when jobs are added")
    func aDrainedQueueWaitsForWork() {
        var engine = machine()
        #expect(engine.step(at: t(0)).claim != nil)
        engine.claimed([], requested: 256, leaseUntil: t(60_000), at: t(0))
        let idle = engine.step(at: t(1))
        #expect(idle.claim == nil && idle.sleepUntil == t(500))
        #expect(engine.step(at: t(500)).claim != nil, "the idle poll looks again")
        engine.claimed([], requested: 256, leaseUntil: t(60_000), at: t(500))
        engine.jobsAdded()
        #expect(engine.step(at: t(501)).claim != nil, "new jobs are looked for at once")
    }

    @Test("a failed write is kept and written again after a pause; a failed claim pauses claims")
    func failuresPause() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimFailed(at: t(0))
        #expect(engine.step(at: t(1)).claim == nil)
        #expect(engine.step(at: t(500)).claim != nil)
        engine.claimed([job(1)], requested: 256, leaseUntil: t(60_000), at: t(500))
        _ = engine.step(at: t(500))
        _ = engine.answered(
            job(1), .delivered(messageID: nil), sentAt: t(500), roundTrip: nil, outstanding: 1, at: t(501))
        let batch = engine.step(at: t(510)).record
        #expect(batch.count == 1)
        engine.recordFailed(batch, at: t(510))
        #expect(engine.step(at: t(520)).record.isEmpty, "not on every step while the database is down")
        #expect(engine.step(at: t(600)).record.map(\.id) == [1])
    }

    @Test("stopping sends nothing more, writes answers at once and finishes when nothing is in flight")
    func stopping() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1), job(2), job(3)], requested: 256, leaseUntil: t(60_000), at: t(0))
        engine.claimed([job(4)], requested: 256, leaseUntil: t(60_000), at: t(0))
        #expect(engine.step(at: t(0)).sends.count == 4)
        engine.claimed([job(5)], requested: 1, leaseUntil: t(60_000), at: t(0))
        engine.stop()
        #expect(engine.step(at: t(1)).sends.isEmpty, "claimed and unsent: handed back, not sent")
        #expect(!engine.step(at: t(1)).finished)
        for id in 1...3 {
            _ = engine.answered(
                job(Int64(id)), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 4, at: t(2))
        }
        let written = engine.step(at: t(2))
        #expect(written.record.count == 3 && !written.finished)
        #expect(
            engine.answered(job(4), .delivered(messageID: nil), sentAt: t(0), roundTrip: nil, outstanding: 1, at: t(3))
                .wake)
        let last = engine.step(at: t(3))
        #expect(last.record.map(\.id) == [4] && last.finished)
    }
}
