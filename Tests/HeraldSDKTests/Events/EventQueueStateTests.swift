import HeraldModel
import Testing

@testable import HeraldSDK

/// The queue's rules without I/O: capacity, age, batches, backoff with jitter, and what each outcome does.
@Suite struct EventQueueStateTests {
    static let start = Timestamp(iso8601: "2025-05-01T09:30:00Z")!

    static func event(_ n: Int, at time: Timestamp = start) -> DeviceEvent {
        DeviceEvent(id: UUIDString.format(UInt64(n), UInt64(n)), type: .custom, occurredAt: time)
    }

    @Test func keepsAtMost1000DroppingTheOldest() {
        var state = EventQueueState()
        var dropped: [HeraldDiagnostic] = []
        for n in 0..<1005 { dropped += state.append(Self.event(n)) }
        #expect(state.events.count == 1000)
        #expect(state.events.first?.id == Self.event(5).id)
        #expect(dropped.count == 5 && dropped.allSatisfy { $0.code == .eventDropped })
    }

    @Test func dropsEventsOlderThan72Hours() {
        var state = EventQueueState()
        _ = state.append(Self.event(1, at: Self.start))
        _ = state.append(Self.event(2, at: Self.start.adding(.seconds(3600))))
        #expect(state.dropExpired(now: Self.start.adding(.seconds(72 * 3600))).isEmpty, "exactly 72 h is kept")
        let dropped = state.dropExpired(now: Self.start.adding(.seconds(72 * 3600 + 1)))
        #expect(dropped.count == 1)
        #expect(state.events.map(\.id) == [Self.event(2).id])
    }

    @Test func batchesAreTheOldest100() {
        var state = EventQueueState()
        for n in 0..<250 { _ = state.append(Self.event(n)) }
        let batch = state.nextBatch(now: Self.start)!
        #expect(batch.count == 100 && batch.first?.id == Self.event(0).id && batch.last?.id == Self.event(99).id)
        _ = state.complete(batch.map(\.id), outcome: .accepted(rejected: []), now: Self.start, random: seededRandom())
        #expect(state.events.count == 150)
        #expect(state.nextBatch(now: Self.start)?.first?.id == Self.event(100).id)
    }

    @Test func retryableFailuresBackOffWithJitterUpToTheMaximum() {
        var state = EventQueueState()
        _ = state.append(Self.event(1))
        let random = seededRandom(9)
        var previousCeiling = 0.0
        for failure in 1...12 {
            let now = Self.start
            _ = state.complete([Self.event(1).id], outcome: .retryable(retryAfter: nil), now: now, random: random)
            let delay = Double(state.retryAt!.since(now).milliseconds)
            let ceiling = min(2000 * pow2(failure - 1), 600_000)
            #expect(delay >= ceiling / 2 && delay <= ceiling, "failure \(failure): \(delay) ms")
            #expect(state.nextBatch(now: now) == nil, "nothing is sent before the retry time")
            #expect(state.nextBatch(now: state.retryAt!) != nil)
            #expect(ceiling >= previousCeiling)
            previousCeiling = ceiling
        }
        #expect(state.events.count == 1, "kept through every failure")
        _ = state.complete([Self.event(1).id], outcome: .accepted(rejected: []), now: Self.start, random: random)
        #expect(state.events.isEmpty && state.failures == 0 && state.retryAt == nil)
    }

    @Test func jitterSpreadsRetries() {
        let delays = (0..<20).map { seed in
            EventQueueState.backoff(
                failures: 3, base: .seconds(2), maximum: .seconds(600), random: seededRandom(UInt64(seed)))
        }
        #expect(Set(delays).count > 10)
        #expect(delays.allSatisfy { $0 >= .seconds(4) && $0 <= .seconds(8) })
    }

    @Test func retryAfterIsHonoured() {
        var state = EventQueueState()
        _ = state.append(Self.event(1))
        _ = state.complete(
            [Self.event(1).id], outcome: .retryable(retryAfter: .seconds(120)), now: Self.start, random: seededRandom())
        #expect(state.retryAt == Self.start.adding(.seconds(120)))
    }

    @Test func refusedBatchesAreDroppedWithADiagnostic() {
        var state = EventQueueState()
        for n in 0..<3 { _ = state.append(Self.event(n)) }
        let diagnostics = state.complete(
            [Self.event(0).id, Self.event(1).id], outcome: .refused(status: 400), now: Self.start,
            random: seededRandom())
        #expect(state.events.map(\.id) == [Self.event(2).id])
        #expect(diagnostics.map(\.code) == [.eventDropped])
        #expect(diagnostics[0].message.contains("400"))
    }

    @Test func rejectedEventsOfAnAcceptedBatchAreReported() {
        var state = EventQueueState()
        _ = state.append(Self.event(1))
        let diagnostics = state.complete(
            [Self.event(1).id], outcome: .accepted(rejected: [(Self.event(1).id, "{\"type\":[\"bad\"]}")]),
            now: Self.start,
            random: seededRandom())
        #expect(state.events.isEmpty)
        #expect(diagnostics.count == 1 && diagnostics[0].message.contains("rejected"))
    }

    @Test func persistsAndRestores() {
        var state = EventQueueState()
        for n in 0..<3 { _ = state.append(Self.event(n)) }
        _ = state.complete([], outcome: .retryable(retryAfter: .seconds(30)), now: Self.start, random: seededRandom())
        var restored = EventQueueState()
        restored.restore(from: state.json)
        #expect(restored == state)
    }

    func pow2(_ n: Int) -> Double { Double(1 << n) }
}
