import HeraldModel
import HeraldDeliveryPorts
import HeraldStore
import Testing

@testable import HeraldDelivery

/// How much of the queue the engine claims: what its credentials can put in flight soon, so that a claimed job is a
/// job sent, not one read, held past its chance and written back unsent (issue 44: 1.16 claims a push at 40 ms,
/// 1.77 with slow answers, 1.29 against a provider shedding load, 23 under an FCM quota).
@Suite("Delivery state machine: claims")
struct DeliveryStateMachineClaimTests {
    let machines = DeliveryStateMachineTests()

    /// What a simulated run came to.
    struct Run {
        var claimed = 0
        var sent = 0
        var deferred = 0
        /// Sends in each round.
        var perRound: [Int] = []
    }

    /// Drives `engine` for `rounds` round trips of `roundTrip` against a queue that never runs dry: each step's claim
    /// is filled with jobs of `platform` (business 1), each round's sends are answered by `answer` at the round's
    /// end (refusals for load first, as a provider refuses at once what it cannot hold), quota leases come from
    /// `ledger`.
    func simulate(
        _ engine: inout DeliveryStateMachine, rounds: Int, roundTrip: Int64, platform: PushPlatform = .apns,
        ledger: MemoryQuotaLedger = MemoryQuotaLedger(),
        answer: (_ index: Int, _ inFlight: Int) -> PushResult = { _, _ in .delivered(messageID: nil) }
    ) throws -> Run {
        var run = Run()
        var nextID: Int64 = 1
        var now = machines.t(0)
        for _ in 0..<rounds {
            var sent: [ClaimedDelivery] = []
            // A round: steps a millisecond apart (the quota's slots come in between), each claim filled at once.
            for tick in 0..<roundTrip {
                let at = now.adding(.milliseconds(tick))
                var step = engine.step(at: at)
                // At most 16 claims in one instant: an engine claiming on while it hands jobs back would go round
                // for ever here.
                var claims = 0
                while true {
                    run.deferred += step.settled.filter { $0.label == "deferred" }.count
                    sent += step.sends.map(\.job)
                    try machines.lease(step, &engine, from: ledger, at: at)
                    guard step.claim != nil || !step.quotaLeases.isEmpty, claims < 16 else { break }
                    if let count = step.claim {
                        claims += 1
                        let jobs = (0..<Int64(count)).map { machines.job(nextID + $0, platform: platform) }
                        nextID += Int64(count)
                        run.claimed += count
                        engine.claimed(jobs, requested: count, leaseUntil: at.adding(.seconds(60)), at: at)
                    }
                    step = engine.step(at: at)
                }
            }
            now = now.adding(.milliseconds(roundTrip))
            run.sent += sent.count
            run.perRound.append(sent.count)
            let inFlight = engine.inFlight
            let answers = sent.enumerated().map { (job: $1, result: answer($0, inFlight)) }
            let refusedFirst =
                answers.filter { if case .shed = $0.result { true } else { false } }
                + answers.filter { if case .shed = $0.result { false } else { true } }
            for (job, result) in refusedFirst {
                _ = engine.answered(
                    job, result, sentAt: now.adding(.milliseconds(-roundTrip)), roundTrip: .milliseconds(roundTrip),
                    outstanding: inFlight, at: now)
            }
        }
        return run
    }

    @Test("from a new credential's first window to the ceiling, every job claimed is sent: none goes back unsent")
    func slowStartClaimsWhatItSends() throws {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        let run = try simulate(&engine, rounds: 10, roundTrip: 40)
        #expect(run.deferred == 0, "the old claims of 500 against a window of 64 handed most back")
        #expect(Array(run.perRound.prefix(7)) == [64, 128, 256, 512, 1024, 2048, 4096], "slow start as before")
        #expect(run.claimed - run.sent == engine.unsentCount, "what was claimed and not sent waits here")
        #expect(engine.unsentCount <= 500, "at the ceiling, a claim ahead")
    }

    @Test("against a provider holding 300 at once, the claims follow the window it settles at, and nothing is deferred")
    func sheddingClaimsWhatTheWindowSends() throws {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        let run = try simulate(&engine, rounds: 30, roundTrip: 40) { index, _ in
            index < 300 ? .delivered(messageID: nil) : .shed(reason: "503 ServiceUnavailable")
        }
        #expect(run.deferred == 0)
        let window = try #require(engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.limit)
        #expect((250...340).contains(window), "it holds near what the provider takes: \(window)")
        #expect(engine.unsentCount <= window, "claimed ahead: no more than the window lets go soon")
    }

    @Test("under an FCM quota the claims follow the quota's pace: a quarter second of it at most, none deferred")
    func quotaClaimsWhatTheQuotaSends() throws {
        // 120,000 a minute: 1,960 a second at 98 %.
        var engine = machines.machine(
            concurrency: 4096, platforms: [.fcm], adaptive: false, credentialWindow: 64, fcmQuota: 120_000)
        let run = try simulate(&engine, rounds: 100, roundTrip: 20, platform: .fcm)
        #expect(run.deferred == 0, "the old claims of 500 against a window of 64 handed back 22 a push sent")
        #expect((3_800...4_000).contains(run.sent), "two seconds at 98 % of the quota: \(run.sent)")
        #expect(run.claimed - run.sent == engine.unsentCount)
        #expect(engine.unsentCount <= 491, "a quarter second of the quota: 250 ms / 0.51 ms a slot, and one")
    }

    @Test("claims for two credentials: each one's room counts, and a credential held back counts for nothing")
    func claimsAddUpTheCredentialsSending() {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        #expect(engine.step(at: machines.t(0)).claim == 64, "nothing sending yet: the starting window")
        engine.claimed(
            (1...32).map { machines.job($0) } + (33...64).map { machines.job($0, business: 2) }, requested: 64,
            leaseUntil: machines.t(60_000), at: machines.t(0))
        let first = engine.step(at: machines.t(0))
        #expect(first.sends.count == 64)
        // Each has 32 of 64 in flight: both can send 64 + 32 within a round trip (slow start).
        #expect(first.claim == 192)
        engine.claimed([], requested: 192, leaseUntil: machines.t(60_000), at: machines.t(1))
        // Business 2's provider asks to wait a minute: its room is nobody's.
        let asked = engine.answered(
            machines.job(33, business: 2), .retryable(reason: "429 TooManyRequests", retryAfter: .seconds(60)),
            sentAt: machines.t(0), roundTrip: .milliseconds(5), outstanding: 64, at: machines.t(5))
        #expect(asked.label == "retried")
        engine.jobsAdded()
        #expect(engine.step(at: machines.t(6)).claim == 96, "business 1's 64 + 32 only")
    }

    @Test("with no credential sending, a claim is a new credential's starting window, however wide an idle one grew")
    func anIdleCredentialsWindowSizesNoClaim() {
        var engine = machines.machine(concurrency: 4096, adaptive: false, credentialWindow: 64)
        var now = machines.t(0)
        var next: Int64 = 1
        // Business 1 sends four rounds, its queue drained after each: its window doubles to 1,024.
        for _ in 0..<4 {
            let limit = engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.limit ?? 64
            let jobs = (0..<Int64(limit)).map { machines.job(next + $0) }
            next += Int64(limit)
            engine.claimed(jobs, requested: limit + 1, leaseUntil: now.adding(.seconds(60)), at: now)
            let sent = engine.step(at: now).sends.map(\.job)
            now = now.adding(.milliseconds(40))
            for job in sent {
                _ = engine.answered(
                    job, .delivered(messageID: nil), sentAt: now.adding(.milliseconds(-40)),
                    roundTrip: .milliseconds(40), outstanding: sent.count, at: now)
            }
        }
        #expect(engine.credentials[DeliveryStateMachine.key(1, .apns)]?.window.limit == 1_024)
        // Business 2's first jobs come: a claim sized to business 1's idle window would bring more than business 2's
        // starting window can send or hold, and hand the rest back unsent.
        engine.jobsAdded()
        let claim = try! #require(engine.step(at: now).claim)
        #expect(claim == 64)
        let jobs = (0..<Int64(claim)).map { machines.job(next + $0, business: 2) }
        engine.claimed(jobs, requested: claim, leaseUntil: now.adding(.seconds(60)), at: now)
        let step = engine.step(at: now)
        #expect(step.sends.count == claim && step.settled.isEmpty, "every job claimed is sent, none deferred")
    }
}
