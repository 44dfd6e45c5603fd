import Foundation
import HeraldDelivery
import HeraldModel
import HeraldObservability
import HeraldStore
import Synchronization
import Testing

/// The engine on its own: a memory store and a provider whose answers the test scripts.
@Suite("Delivery engine")
struct DeliveryEngineTests {
    @Test("answers given before send returns (refused payloads, missing credentials) do not teach the window")
    func synchronousAnswersDoNotMoveTheWindow() throws {
        // Answered at once on the caller's thread: no round trip was made, so the window must not learn from it.
        let synchronous = try EngineHarness(jobs: 400) { _, completion in completion(.failed(reason: "too large")) }
        try synchronous.run()
        #expect(synchronous.outcomes() == [.failed: 400])
        #expect(synchronous.latencies == 0)
        #expect(synchronous.window == 32, "the initial window, twice the minimum of 16")

        // The same answers a millisecond later from another thread, after `send` returned, are round trips and
        // are measured.
        let answered = try EngineHarness(jobs: 400) { _, completion in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) {
                completion(.failed(reason: "too large"))
            }
        }
        try answered.run()
        #expect(answered.outcomes() == [.failed: 400])
        #expect(answered.latencies > 200)
    }

    @Test("a job held past half its lease is handed back, due at once and with its attempt returned, then sent")
    func jobsHeldTooLongAreRequeued() throws {
        // A window of one and a provider that stalls on the first push for most of the lease: the jobs claimed
        // with it wait behind it until their leases are more than half gone. (A lease of seconds, not
        // milliseconds: a loaded machine must not let it run out altogether, which would resend the first.)
        let lease = Duration.seconds(2)
        let first = FirstCall()
        let harness = try EngineHarness(jobs: 3, concurrency: 1, lease: lease) { _, completion in
            let stall = first.claim()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(stall ? 1500 : 0)) {
                completion(.delivered(messageID: nil))
            }
        }
        try harness.run()
        #expect(harness.outcomes() == [.delivered: 3])
        #expect(harness.requeued == 2)
        let sent = harness.sent.ids.withLock { $0 }
        #expect(sent.count == 3 && Set(sent).count == 3, "each push went out once")
        #expect(try harness.deliveries().allSatisfy { $0.attempts == 1 }, "the requeue gave the attempt back")
    }

    @Test(
        "a refusal of the credential breaks it, unless it was replaced after the push went out: then the push goes again"
    )
    func aRefusalOfAReplacedCredentialIsRetried() throws {
        // First a plain refusal: the credential is marked broken and the job waits.
        let refused = try EngineHarness(jobs: 1) { _, completion in
            DispatchQueue.global().async { completion(.credentialRejected(reason: "403 InvalidProviderToken")) }
        }
        try refused.setCredential()
        try refused.run(until: { $0.allSatisfy { $0.status == .queued && $0.lastReason != nil } })
        #expect(try refused.store.brokenCredentials().count == 1)

        // Now the operator replaces the key while the push is on its way (the provider replaces it before it
        // answers, so the order is certain); Apple's refusal is about the old one.
        let late = Late<EngineHarness>()
        let replaced = try EngineHarness(jobs: 1) { push, completion in
            guard push.attempt == 1 else { return completion(.delivered(messageID: nil)) }
            DispatchQueue.global().async {
                Thread.sleep(forTimeInterval: 0.01)  // a later millisecond than the send's
                try? late.value?.setCredential()
                completion(.credentialRejected(reason: "403 InvalidProviderToken"))
            }
        }
        late.value = replaced
        try replaced.setCredential()
        try replaced.run()
        #expect(try replaced.store.brokenCredentials().isEmpty)
        #expect(replaced.outcomes() == [.delivered: 1])
        #expect(try replaced.deliveries().first?.attempts == 2)
    }

    @Test("answers are written in batches, or once the first has waited the record delay, and all of them at shutdown")
    func answersAreRecordedInBatches() throws {
        // A delay no test waits for: while the engine runs, only a full batch of 5 is written. The provider holds
        // its answers until the test releases them.
        let held = HeldAnswers()
        let batched = try EngineHarness(jobs: 7, recording: (.seconds(3600), 5)) { _, completion in
            held.add(completion)
        }
        try batched.engine.start()
        held.waitFor(7)
        held.release(4)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(batched.outcomes() == [.sending: 7], "four answers wait for a fifth")
        held.release(1)
        try batched.wait { $0.filter { $0.status == .delivered }.count == 5 }
        held.release(2)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(batched.outcomes() == [.delivered: 5, .sending: 2], "two answers wait for the next batch")
        batched.engine.shutdown(gracePeriod: .seconds(1))
        #expect(batched.outcomes() == [.delivered: 7], "shutdown writes what waits")

        // A batch never filled: the delay writes it.
        let delayed = try EngineHarness(jobs: 12, recording: (.milliseconds(20), 1000)) { _, completion in
            DispatchQueue.global().async { completion(.delivered(messageID: nil)) }
        }
        try delayed.engine.start()
        defer { delayed.engine.shutdown(gracePeriod: .seconds(1)) }
        try delayed.wait { $0.allSatisfy { $0.status == .delivered } }
    }
}

/// A memory store with `jobs` news entries, one per iPhone user, and an engine whose APNs provider is `answer`.
private final class EngineHarness: Sendable {
    let store = MemoryStore()
    let metrics = MetricsRegistry()
    let engine: DeliveryEngine
    let notificationIDs: [Int64]
    let businessID: Int64
    /// Delivery ids the provider was handed, in order.
    let sent = SentPushes()

    init(
        jobs: Int, concurrency: Int = 64, lease: Duration = .seconds(60),
        recording: (delay: Duration, batch: Int) = (.milliseconds(2), 32),
        answer: @escaping @Sendable (OutgoingPush, @escaping @Sendable (PushResult) -> Void) -> Void
    ) throws {
        let now = WallClock.system.now()
        let business = try store.createBusiness(
            name: "Engine Co", clientID: "engine", sealedSecret: [1], posKeyHash: "pos", at: now)
        businessID = business.id
        var drafts: [NotificationDraft] = []
        for index in 0..<jobs {
            let user = try store.createUser(
                NewUser(
                    businessID: business.id, email: "u\(index)@example.com", passwordHash: "x", firstName: "U",
                    lastName: "V"),
                at: now)
            _ = try store.registerDevice(
                businessID: business.id, userID: user.id,
                DeviceRegistration(
                    deviceKey: "d\(index)", platform: .apns,
                    token: .some(String(repeating: "a", count: 63) + "\(index)"),
                    userAgent: nil),
                at: now)
            drafts.append(
                NotificationDraft(
                    businessID: business.id, userID: user.id, kind: .news, event: "news", title: "T", body: "B"))
        }
        notificationIDs = try store.createNotifications(drafts, at: now).map(\.id)
        var configuration = DeliveryEngine.Configuration(owner: "test-node")
        configuration.concurrency = concurrency
        configuration.minimumConcurrency = min(16, concurrency)
        configuration.lease = lease
        configuration.idlePoll = .milliseconds(20)
        (configuration.recordDelay, configuration.recordBatch) = recording
        let sent = sent
        engine = DeliveryEngine(
            store: store,
            providers: [
                ScriptedProvider { push, completion in
                    sent.ids.withLock { $0.append(push.deliveryID) }
                    answer(push, completion)
                }
            ],
            clock: .system, configuration: configuration, logger: .disabled, metrics: metrics)
    }

    /// Starts the engine, waits until `settled` says so of the deliveries (by default: none is queued or
    /// sending; at most 10 s), and shuts it down.
    func run(
        until settled: ([Delivery]) -> Bool = { $0.allSatisfy { $0.status != .queued && $0.status != .sending } }
    ) throws {
        try engine.start()
        defer { engine.shutdown(gracePeriod: .seconds(1)) }
        try wait(until: settled)
    }

    /// Waits (at most 10 s) until `settled` says so of the deliveries.
    func wait(until settled: ([Delivery]) -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if settled(try deliveries()) { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Issue.record("deliveries still unsettled after 10 s")
    }

    /// Sets (or replaces) the business's APNs credential now.
    func setCredential() throws {
        try store.setCredential(
            PushCredential(
                businessID: businessID, platform: .apns, settings: [:], sealedKey: [1],
                updatedAt: WallClock.system.now()))
    }

    func deliveries() throws -> [Delivery] {
        try notificationIDs.flatMap { try store.deliveries(notificationID: $0) }
    }

    func outcomes() -> [DeliveryStatus: Int] {
        ((try? deliveries()) ?? []).reduce(into: [:]) { $0[$1.status, default: 0] += 1 }
    }

    var window: Double { metrics.gauge("herald_delivery_window", help: "").value }

    var latencies: Int64 {
        metrics.histogram("herald_push_send_duration_seconds", help: "", labels: ["provider": "apns"]).count
    }

    var requeued: Int64 {
        metrics.counter("herald_push_sends_total", help: "", labels: ["provider": "apns", "outcome": "requeued"]).value
    }
}

private final class SentPushes: Sendable {
    let ids = Mutex<[Int64]>([])
}

/// A reference set after the closure that reads it was made.
private final class Late<Value: AnyObject & Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)
    var value: Value? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

/// A provider's answers, kept until the test gives them.
private final class HeldAnswers: Sendable {
    private let answers = Mutex<[@Sendable (PushResult) -> Void]>([])

    func add(_ completion: @escaping @Sendable (PushResult) -> Void) { answers.withLock { $0.append(completion) } }

    /// Waits (at most 10 s) until `count` pushes were handed over.
    func waitFor(_ count: Int) {
        let deadline = ContinuousClock.now + .seconds(10)
        while answers.withLock({ $0.count }) < count && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Answers the first `count` pushes held, delivered, from another thread.
    func release(_ count: Int) {
        let released = answers.withLock { answers in
            defer { answers.removeFirst(count) }
            return Array(answers.prefix(count))
        }
        for answer in released { DispatchQueue.global().async { answer(.delivered(messageID: nil)) } }
    }
}

/// True for the first caller only.
private final class FirstCall: Sendable {
    private let isFirst = Atomic<Bool>(true)
    func claim() -> Bool { isFirst.exchange(false, ordering: .relaxed) }
}

private struct ScriptedProvider: PushProvider {
    let platform = PushPlatform.apns
    let answer: @Sendable (OutgoingPush, @escaping @Sendable (PushResult) -> Void) -> Void

    func send(_ push: OutgoingPush, completion: @escaping @Sendable (PushResult) -> Void) { answer(push, completion) }
    func credentialChanged(businessID: Int64) {}
    func shutdown() {}
}
