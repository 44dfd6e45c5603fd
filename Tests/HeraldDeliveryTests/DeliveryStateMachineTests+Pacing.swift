import HeraldHTTPClient
import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import Testing
@testable import HeraldDelivery

/// Pacing: send windows, throttling, back pressure and load shedding per credential, and FCM quota leases.
extension DeliveryStateMachineTests {
    @Test("answers given before send returned teach the window nothing; round trips do")
    func onlyRoundTripsTeachTheWindow() {
        var engine = machine(concurrency: 512)
        let start = engine.window.limit
        _ = engine.step(at: t(0))
        engine.claimed((1...400).map { job($0) }, requested: 400, leaseUntil: t(60_000), at: t(0))
        for _ in 0..<20 {
            for (job, _) in engine.step(at: t(1)).sends {
                _ = engine.answered(
                    job, .failed(reason: "too large"), sentAt: t(1), roundTrip: nil, outstanding: 1, at: t(1))
            }
        }
        #expect(engine.window.limit == start)
        var fresh = machine(concurrency: 512)
        _ = fresh.step(at: t(0))
        fresh.claimed((1...400).map { job($0) }, requested: 400, leaseUntil: t(60_000), at: t(0))
        for _ in 0..<20 {
            for (job, _) in fresh.step(at: t(1)).sends {
                _ = fresh.answered(
                    job, .delivered(messageID: nil), sentAt: t(1), roundTrip: .milliseconds(40),
                    outstanding: fresh.inFlight, at: t(41))
            }
        }
        #expect(fresh.window.limit > start, "steady round trips at full use widen the window")
    }

    @Test("without an adaptive window (the default), slow answers hold only their own places: the rest keep going")
    func slowAnswersDoNotNarrowTheDefault() {
        var engine = machine(concurrency: 512, adaptive: false)
        _ = engine.step(at: t(0))
        engine.claimed((1...500).map { job($0) }, requested: 500, leaseUntil: t(60_000), at: t(0))
        var sent = engine.step(at: t(1)).sends.map(\.job)
        #expect(sent.count == 500 && engine.window.limit == 512)
        // One in ten answers after 2 s, the rest after 40 ms, over several rounds.
        for round in 0..<10 {
            let now = t(1 + Int64(round) * 50)
            for job in sent where job.id % 10 != 0 {
                _ = engine.answered(
                    job, .delivered(messageID: nil), sentAt: now, roundTrip: .milliseconds(40),
                    outstanding: engine.inFlight, at: now)
            }
            engine.claimed(
                (1...600).map { job(Int64(1_000 * (round + 1)) + $0) }, requested: 600, leaseUntil: t(60_000), at: now)
            sent = engine.step(at: now).sends.map(\.job)
            #expect(engine.window.limit == 512, "never narrowed by slow answers")
            #expect(engine.inFlight == 512, "every place not held by a slow answer is in use")
        }
    }

    @Test(
        "a provider token refused as one too many holds the credential without counting an attempt",
        .bug(id: "issue-35-3", "TooManyProviderTokenUpdates was retried as any 429: pushes failed after 8 attempts"))
    func aThrottledAnswerIsNoAttempt() {
        var engine = machine()
        _ = engine.step(at: t(0))
        // Its last attempt (maxAttempts 3): a retryable answer would fail it; a throttled one makes it wait.
        engine.claimed([job(1, attempts: 3)], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        let answer = engine.answered(
            job(1, attempts: 3), .throttled(reason: "429 TooManyProviderTokenUpdates", retryAfter: .seconds(60)),
            sentAt: t(0), roundTrip: .milliseconds(5), outstanding: 1, at: t(10))
        #expect(answer.label == "throttled")
        let written = engine.step(at: t(20)).record
        #expect(written.map(\.outcome) == [.wait(until: t(60_010), reason: "429 TooManyProviderTokenUpdates")])
    }

    @Test(
        "a node leasing no connection for a credential hands its pushes back, and claims no more until it may look again",
        .bug(
            id: "issue-34-leaseless",
            "3 nodes: the two without a slot claimed and handed back 57,320 pushes in a 100,000-push run"))
    func aLeaselessNodeStopsClaimingUntilItMayLookAgain() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1)], requested: 256, leaseUntil: t(60_000), at: t(0))
        #expect(engine.step(at: t(0)).sends.map(\.job.id) == [1])
        let answer = engine.answered(
            job(1), .leaseless(retryAfter: .seconds(1)), sentAt: t(0), roundTrip: nil, outstanding: 1, at: t(10))
        #expect(answer.label == "throttled")
        #expect(engine.pacing(businessID: 1, at: t(10), recent: .seconds(60)) == nil, "others send for it")
        // A claim of that credential's pushes goes back whole, and the next waits for the hold's end.
        engine.claimed((2...256).map { job($0) }, requested: 255, leaseUntil: t(60_000), at: t(20))
        let handedBack = engine.step(at: t(20))
        #expect(handedBack.sends.isEmpty && handedBack.settled.count == 255)
        #expect(handedBack.claim == nil, "a claim now would be handed back too")
        let written = handedBack.record + engine.step(at: t(30)).record
        #expect(
            written.contains {
                $0.id == 2
                    && $0.outcome
                        == .wait(until: t(1_010), reason: "no connection of the fleet's budget leased on this node")
            })
        #expect(engine.step(at: t(500)).claim == nil)
        #expect(engine.step(at: t(1_010)).claim == 16, "it may look for a connection again, with a few pushes")
        // A claim mostly of other credentials' pushes is worth the next one at once.
        engine.claimed(
            [job(300)] + (301...315).map { job($0, business: 2) }, requested: 16, leaseUntil: t(60_000), at: t(1_010))
        let sent = engine.step(at: t(1_010)).sends.map(\.job)
        #expect(sent.count == 16)
        for job in sent {
            let result: PushResult = job.id == 300 ? .leaseless(retryAfter: .seconds(1)) : .delivered(messageID: nil)
            _ = engine.answered(job, result, sentAt: t(1_010), roundTrip: nil, outstanding: 16, at: t(1_011))
        }
        engine.claimed(
            (316...325).map { job($0) } + (326...345).map { job($0, business: 2) }, requested: 30,
            leaseUntil: t(60_000), at: t(1_020))
        let mixed = engine.step(at: t(1_020))
        #expect(mixed.sends.count == 20 && mixed.settled.count == 10)
        #expect(mixed.claim == 32, "a claim of what business 2 can send soon again, not a probe")
    }

    @Test("a provider asking to slow down (Retry-After) holds that credential's pushes only, then lets them go")
    func backPressureHoldsOneCredential() {
        var engine = machine()
        _ = engine.step(at: t(0))
        engine.claimed([job(1)], requested: 256, leaseUntil: t(60_000), at: t(0))
        _ = engine.step(at: t(0))
        let answer = engine.answered(
            job(1), .retryable(reason: "429 TooManyProviderTokenUpdates", retryAfter: .seconds(30)), sentAt: t(0),
            roundTrip: .milliseconds(5), outstanding: 1, at: t(10))
        #expect(answer.label == "retried")
        engine.claimed([job(2), job(3, business: 2)], requested: 256, leaseUntil: t(60_000), at: t(20))
        let held = engine.step(at: t(20))
        #expect(held.sends.map(\.job.id) == [3], "another business's push goes")
        #expect(held.settled.map(\.label) == ["throttled"])
        let written = held.record + engine.step(at: t(40)).record
        #expect(
            written.contains {
                $0.id == 2 && $0.outcome == .wait(until: t(30_010), reason: "provider asked to slow down")
            }
        )
        // Once the time has passed, that credential's pushes go again.
        engine.claimed([job(4)], requested: 256, leaseUntil: t(90_000), at: t(30_010))
        #expect(engine.step(at: t(30_010)).sends.map(\.job.id) == [4])
        // A transport failure on a connection sent away with ENHANCE_YOUR_CALM asks the same.
        let calm = PushResult.transportFailure(
            HTTPClientError(code: .connectionReset, message: "GOAWAY", http2ErrorCode: .enhanceYourCalm))
        #expect(calm == .retryable(reason: "transport: connectionReset (ENHANCE_YOUR_CALM)", retryAfter: .seconds(5)))
        #expect(
            PushResult.transportFailure(HTTPClientError(code: .timeout, message: "t"))
                == .retryable(reason: "transport: timeout", retryAfter: nil))
    }

    @Test("a provider shedding load narrows that credential's window: its other pushes wait unsent, not refused")
    func sheddingNarrowsOneCredential() {
        var engine = machine(concurrency: 512, adaptive: false, credentialWindow: 64)
        _ = engine.step(at: t(0))
        // A claim counted on another credential's room (business 2's jobs never came): business 1's beyond what it
        // can send soon go back.
        engine.claimed(
            (1...400).map { job($0) } + (401...410).map { job($0, business: 2) }, requested: 500,
            leaseUntil: t(60_000), at: t(0))
        let start = engine.step(at: t(0))
        let first = start.sends.map(\.job)
        #expect(first.count == 74, "each credential starts at 64 and doubles a round while answers succeed")
        #expect(
            engine.heldCount == 256,
            "twice what business 1 can send within a round trip (64 now, 64 as they are answered) waits here")
        #expect(
            start.settled.count == 80 && start.settled.allSatisfy { $0.label == "deferred" },
            "the rest go back to the queue unsent, to be claimed again in a while")
        let shedding = DeliveryStateMachine.key(1, .apns)
        // The provider holds 44 and refuses 20 for load, at once.
        for job in first.filter({ $0.notification.businessID == 1 }).suffix(20) {
            let answer = engine.answered(
                job, .shed(reason: "503 ServiceUnavailable"), sentAt: t(0), roundTrip: .milliseconds(1),
                outstanding: 74, at: t(1))
            #expect(answer.label == "refused")
        }
        #expect(engine.credentials[shedding]?.window.limit == 57, "0.9 × 64, once for the whole burst")
        #expect(engine.credentials[shedding]?.window.refusals == 20)
        // What a campaign report says paces business 1 (its provider sheds load), for a minute after; not business 2.
        #expect(engine.pacing(businessID: 1, at: t(2), recent: .seconds(60)) == .provider)
        #expect(engine.pacing(businessID: 1, at: t(60_001), recent: .seconds(60)) == nil)
        #expect(engine.pacing(businessID: 2, at: t(2), recent: .seconds(60)) == nil)
        let refused = engine.step(at: t(2))
        #expect(refused.sends.count == 13, "57 may be in flight and 44 are: 13 more go, the others keep waiting")
        let written = start.record + refused.record + engine.step(at: t(3)).record
        #expect(
            written.filter { $0.id <= 64 }.allSatisfy {
                $0.outcome == .retry(at: t(1), reason: "503 ServiceUnavailable")
            }, "a refused push is due again at once: the narrower window keeps it from adding to the load")
        #expect(
            written.filter { $0.id > 64 }.allSatisfy {
                $0.outcome == .wait(until: t(1_000), reason: "credential at its limit")
            }, "deferred: back in the queue, its attempt not counted")
        #expect(written.count == 20 + 80)
        // The other business's pushes never waited.
        for job in first.filter({ $0.notification.businessID == 2 }) {
            _ = engine.answered(
                job, .delivered(messageID: nil), sentAt: t(0), roundTrip: .milliseconds(40), outstanding: 50, at: t(40))
        }
        #expect(engine.credentials[DeliveryStateMachine.key(2, .apns)]?.window.refusals == 0)
        // As business 1's answers succeed, the window grows again and what waited goes, oldest first.
        for job in first.filter({ $0.notification.businessID == 1 }).prefix(44) {
            _ = engine.answered(
                job, .delivered(messageID: nil), sentAt: t(0), roundTrip: .milliseconds(40), outstanding: 57, at: t(40))
        }
        let grown = try! #require(engine.credentials[shedding]?.window.limit)
        #expect(grown == 63, "57 + 8/57 a success: about eight a round")
        let next = engine.step(at: t(41)).sends.map(\.job.id)
        #expect(next.count == grown - 13 && next.first == 78, "jobs 65-77 went before; the next oldest follow")
        #expect(engine.heldCount == 256 - 13 - next.count)
    }

    @Test("slow answers shrink no credential's window; only refusals for load do")
    func slowAnswersShrinkNothing() {
        var engine = machine(concurrency: 512, adaptive: false, credentialWindow: 64)
        _ = engine.step(at: t(0))
        engine.claimed((1...500).map { job($0) }, requested: 500, leaseUntil: t(60_000), at: t(0))
        var now = t(0)
        for _ in 0..<4 {
            let sent = engine.step(at: now).sends.map(\.job)
            now = now.adding(.seconds(2))
            for job in sent {
                _ = engine.answered(
                    job, .retryable(reason: "transport: timeout", retryAfter: nil), sentAt: t(0),
                    roundTrip: .seconds(2), outstanding: 64, at: now)
            }
        }
        #expect(engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.limit == 64)
        #expect(engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.slowStart == true)
    }

    @Test("a credential's window never shrinks below the floor, however often its provider refuses")
    func sheddingStopsAtTheFloor() {
        var engine = machine(concurrency: 512, adaptive: false, credentialWindow: 64)
        _ = engine.step(at: t(0))
        var now = t(0)
        for round in 0..<40 {
            let ids = Int64(round * 100 + 1)...Int64(round * 100 + 100)
            engine.claimed(ids.map { job($0) }, requested: 100, leaseUntil: t(60_000), at: now)
            let sent = engine.step(at: now).sends.map(\.job)
            let sentAt = now
            now = now.adding(.milliseconds(10))
            for job in sent {
                _ = engine.answered(
                    job, .shed(reason: "503"), sentAt: sentAt, roundTrip: .milliseconds(1), outstanding: 1, at: now)
            }
        }
        #expect(engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.limit == 16)
        engine.claimed((5_001...5_100).map { job($0) }, requested: 100, leaseUntil: t(60_000), at: now)
        #expect(engine.step(at: now).sends.count == 16, "the floor still sends")
    }

    @Test(
        "a push refused for load is due again at once the first time, then in 125-250 ms; a drained queue is looked at again then",
        .bug(id: "issue-44", "the last refused pushes waited out a backoff while their credential's window had room")
    )
    func aRefusalIsRetriedSoon() {
        var engine = machine(concurrency: 64, adaptive: false)
        _ = engine.step(at: t(0))
        engine.claimed([job(1)], requested: 256, leaseUntil: t(60_000), at: t(0))
        #expect(engine.step(at: t(0)).sends.count == 1)
        _ = engine.answered(
            job(1), .shed(reason: "503"), sentAt: t(0), roundTrip: .milliseconds(40), outstanding: 1, at: t(40))
        #expect(engine.step(at: t(40)).claim == nil, "not before its answer is written: a claim would find nothing")
        let first = engine.step(at: t(42))
        #expect(first.record.map(\.outcome) == [.retry(at: t(40), reason: "503")], "due at once: the window spaces it")
        #expect(first.claim != nil, "the drained queue is looked at again as it is written, for it")
        engine.claimed([job(1, attempts: 2)], requested: 64, leaseUntil: t(60_042), at: t(42))
        #expect(engine.step(at: t(42)).sends.count == 1)
        _ = engine.answered(
            job(1, attempts: 2), .shed(reason: "503"), sentAt: t(42), roundTrip: .milliseconds(40), outstanding: 1,
            at: t(90))
        let second = engine.step(at: t(100))
        #expect(second.record.map(\.outcome) == [.retry(at: t(277), reason: "503")], "187.5 ms: the window's middle")
        #expect(second.claim == nil, "the queue was drained")
        #expect(engine.step(at: t(277)).claim != nil, "looked at again when the retry is due, not at the idle poll")
    }

    @Test(
        "a look at a drained queue already due, not taken for want of room, is no time to wake at: asleep until an answer",
        .bug(
            id: "issue-44",
            "after a refusal due at once was written, jobs waiting for room woke the runner over and over")
    )
    func aLookAlreadyDueIsNoWakeUp() {
        var engine = machine(concurrency: 64, adaptive: false)
        _ = engine.step(at: t(0))
        engine.claimed((1...100).map { job($0) }, requested: 256, leaseUntil: t(60_000), at: t(0))
        let sent = engine.step(at: t(0)).sends.map(\.job)
        #expect(sent.count == 64)
        _ = engine.answered(
            sent[0], .shed(reason: "503"), sentAt: t(0), roundTrip: .milliseconds(40), outstanding: 64, at: t(40))
        #expect(engine.step(at: t(42)).record.map(\.outcome) == [.retry(at: t(40), reason: "503")])
        let idle = engine.step(at: t(43))
        #expect(idle.claim == nil && idle.sends.isEmpty, "36 wait for room in the narrower window")
        #expect(idle.sleepUntil.map { $0 > t(43) } == true, "asleep until an answer frees room, not woken at once")
    }

    @Test("a refusal for load: due at once after the first attempt, then backed off from shedBase; none after the last")
    func theShedBackoff() {
        let policy = RetryPolicy(maxAttempts: 4, shedBase: .milliseconds(250))
        #expect(policy.delayAfterShed(afterAttempt: 1, random: 0.5) == .zero)
        #expect(policy.delayAfterShed(afterAttempt: 2, random: 0.5) == .microseconds(187_500))
        #expect(policy.delayAfterShed(afterAttempt: 3, random: 0.5) == .milliseconds(375))
        #expect(policy.delayAfterShed(afterAttempt: 4, random: 0.5) == nil, "the last attempt: the push fails")
    }

    @Test("what counts as shedding load: 500, 502, 503 and 429 without Retry-After, resets; not timeouts")
    func whatCountsAsShedding() {
        for status in [429, 500, 502, 503] {
            #expect(PushResult.retry(status: status, reason: "x", retryAfter: nil) == .shed(reason: "x"))
            #expect(
                PushResult.retry(status: status, reason: "x", retryAfter: .seconds(9))
                    == .retryable(reason: "x", retryAfter: .seconds(9)), "a time to come back holds the credential")
        }
        #expect(PushResult.retry(status: 504, reason: "x", retryAfter: nil) == .retryable(reason: "x", retryAfter: nil))
        #expect(
            PushResult.transportFailure(HTTPClientError(code: .connectionReset, message: "RST_STREAM"))
                == .shed(reason: "transport: connectionReset"))
        #expect(
            PushResult.transportFailure(HTTPClientError(code: .timeout, message: "t"))
                == .retryable(reason: "transport: timeout", retryAfter: nil), "slowness is not shedding")
    }

    /// Answers `step`'s quota leases from `ledger`, as the runner does.
    func lease(
        _ step: DeliveryStateMachine.Step, _ engine: inout DeliveryStateMachine, from ledger: any QuotaLedger,
        at now: Timestamp
    ) throws {
        for key in step.quotaLeases {
            let grant = try #require(
                try ledger.lease(
                    businessID: key.businessID, duration: engine.quotaLeaseDuration(for: key),
                    defaultPerMinute: engine.configuration.fcmQuotaPerMinute ?? 0, at: now))
            engine.quotaGranted(grant, for: key)
        }
    }

    @Test("FCM's quota: a credential leases a second of it at a time and sends at 98 % of its pace; the rest wait")
    func quotaPacesOneCredential() throws {
        // 6,000 a minute: paced to 98 a second, a slot every 10.2 ms.
        var engine = machine(concurrency: 512, platforms: [.apns, .fcm], adaptive: false, fcmQuota: 6_000)
        let ledger = MemoryQuotaLedger()
        _ = engine.step(at: t(0))
        engine.claimed(
            (1...30).map { job($0, platform: .fcm) } + [job(31, business: 2, platform: .fcm), job(32)], requested: 500,
            leaseUntil: t(60_000), at: t(0))
        let asking = engine.step(at: t(0))
        #expect(asking.sends.map(\.job.id) == [32], "FCM's pushes wait for their quota; APNs's go")
        #expect(
            asking.quotaLeases == [DeliveryStateMachine.key(1, .fcm), DeliveryStateMachine.key(2, .fcm)],
            "each credential asks the ledger once")
        #expect(engine.heldCount == 31 && asking.settled.isEmpty, "they wait here: not sent, not refused")
        try lease(asking, &engine, from: ledger, at: t(0))
        let first = engine.step(at: t(0))
        #expect(first.sends.count == 2 && first.quotaLeases.isEmpty, "the first slot of each")
        #expect(engine.pacing(businessID: 1, at: t(0), recent: .seconds(60)) == .quota, "what its reports say")
        let idle = engine.step(at: t(1))
        #expect(idle.sends.isEmpty && idle.sleepUntil == t(11), "asleep until the next slot")
        #expect(engine.step(at: t(11)).sends.count == 1)
        // The engine paused: slots missed by more than a tenth of a second are dropped, not sent all at once.
        let late = engine.step(at: t(1_005))
        #expect(late.sends.count == 9, "the slots of 908-1000 ms, the last of the lease")
        #expect(late.quotaLeases == [DeliveryStateMachine.key(1, .fcm)], "and the next second is asked for")
        try lease(late, &engine, from: ledger, at: t(1_005))
        #expect(engine.step(at: t(1_005)).sends.count == 1, "it starts now: the time nobody spent is not saved up")
        // A 429 with Retry-After holds that credential only.
        let held = engine.answered(
            job(1, platform: .fcm), .retryable(reason: "429 QUOTA_EXCEEDED", retryAfter: .seconds(30)), sentAt: t(0),
            roundTrip: .milliseconds(5), outstanding: 1, at: t(1_006))
        #expect(held.label == "retried")
        #expect(engine.pacing(businessID: 1, at: t(20_000), recent: .seconds(60)) == .quota, "FCM's 429 too")
        engine.claimed(
            [job(40, platform: .fcm), job(41, business: 2, platform: .fcm)], requested: 500, leaseUntil: t(60_000),
            at: t(2_200))
        let after = engine.step(at: t(2_200))
        #expect(after.settled.map(\.label).contains("throttled"))
        #expect(
            after.quotaLeases == [DeliveryStateMachine.key(2, .fcm)], "the other project's lease ran out a while ago")
        try lease(after, &engine, from: ledger, at: t(2_200))
        #expect(engine.step(at: t(2_200)).sends.map(\.job.id) == [41], "another project's push goes")
    }

    @Test("two nodes leasing one project's quota from one ledger keep to it together, and both send")
    func twoNodesShareOneQuota() throws {
        let ledger = MemoryQuotaLedger()
        var nodes = [0, 1].map { _ in machine(concurrency: 512, platforms: [.fcm], adaptive: false, fcmQuota: 6_000) }
        var nextID: Int64 = 1
        var sends: [[Int64]] = [[], []]
        for now in Int64(0)..<60_000 {
            for node in nodes.indices {
                var step = nodes[node].step(at: t(now))
                while true {
                    if let count = step.claim {
                        let jobs = (0..<Int64(count)).map { job(nextID + $0, platform: .fcm) }
                        nextID += Int64(count)
                        nodes[node].claimed(jobs, requested: count, leaseUntil: t(now + 60_000), at: t(now))
                    }
                    try lease(step, &nodes[node], from: ledger, at: t(now))
                    for (sent, _) in step.sends {
                        sends[node].append(now)
                        _ = nodes[node].answered(
                            sent, .delivered(messageID: nil), sentAt: t(now), roundTrip: .milliseconds(1),
                            outstanding: 1, at: t(now))
                    }
                    guard step.claim != nil || !step.quotaLeases.isEmpty else { break }
                    step = nodes[node].step(at: t(now))
                }
            }
        }
        let all = (sends[0] + sends[1]).sorted()
        #expect(all.count <= 6_000 && all.count >= 5_800, "98 % of the quota over the minute, both nodes together")
        #expect(sends[0].count > 2_000 && sends[1].count > 2_000, "each node spends its own stretches")
        // No second, wherever it starts, sees more than the quota's second's worth.
        var busiest = 0
        var from = 0
        for (index, time) in all.enumerated() {
            while all[from] <= time - 1_000 { from += 1 }
            busiest = max(busiest, index - from + 1)
        }
        #expect(busiest <= 100, "at most a second's worth (100) in any second: \(busiest)")
    }
}
