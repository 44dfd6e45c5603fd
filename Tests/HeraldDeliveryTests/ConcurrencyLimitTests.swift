import HeraldTesting
import Testing

@testable import HeraldDelivery

/// The adaptive window against model providers: one that answers `capacity` pushes a second after a fixed
/// `roundTrip`, queueing the rest (a send's time is the longer of its round trip and the queue ahead of it).
@Suite("Concurrency limit")
struct ConcurrencyLimitTests {
    /// Runs `rounds` windows' worth of sends, each window fully used unless `using` caps it.
    static func settle(
        roundTrip: Double, capacity: Double, rounds: Int = 400, using: Int? = nil, initial: Int = 32
    ) -> ConcurrencyLimit {
        var limit = ConcurrencyLimit(range: 16...512, initial: initial)
        var jitter = SeededGenerator(seed: 7)
        for _ in 0..<rounds {
            let inFlight = min(limit.limit, using ?? .max)
            let seconds = max(roundTrip, Double(inFlight) / capacity)
            for _ in 0..<max(limit.limit, 16) {
                limit.record(seconds: seconds * (0.9 + 0.2 * jitter.fraction()), inFlight: inFlight)
            }
        }
        // Never stop in the middle of a probe: its narrow window is not where the path settled.
        while limit.isProbing {
            let seconds = max(roundTrip, Double(limit.limit) / capacity)
            limit.record(seconds: seconds, inFlight: limit.limit)
        }
        return limit
    }

    @Test func aNearSlowProviderKeepsTheWindowNarrow() {
        // 3,000 answers a second, 2 ms away: 6 in flight fill the path; 512 would only queue.
        let limit = Self.settle(roundTrip: 0.002, capacity: 3_000, initial: 512)
        #expect(limit.limit <= 40, "window \(limit.limit)")
    }

    @Test func aDistantFastProviderOpensItWide() {
        // 100 ms away, 20,000 answers a second: 2,000 in flight would fit; the cap is 512.
        let limit = Self.settle(roundTrip: 0.1, capacity: 20_000)
        #expect(limit.limit == 512)
    }

    @Test func theWindowSettlesNearWhatThePathHolds() {
        // 20 ms away at 5,000 a second: 100 in flight fill the path.
        let limit = Self.settle(roundTrip: 0.02, capacity: 5_000)
        #expect((100...300).contains(limit.limit), "window \(limit.limit)")
    }

    @Test func aProbeMeasuresOnlyWhatWasSentWithinTheNarrowWindow() {
        var limit = ConcurrencyLimit(range: 16...512, initial: 512)
        var rounds = 0
        while !limit.isProbing && rounds < 1_000 {
            for _ in 0..<limit.limit { limit.record(seconds: 0.01, inFlight: limit.limit) }
            rounds += 1
        }
        #expect(limit.isProbing)
        #expect(limit.limit == 16)
        // Answers to sends made under the wide window before the probe began: slow, and not the probe's business.
        for _ in 0..<1_000 { limit.record(seconds: 5, inFlight: 512) }
        #expect(limit.isProbing, "the wide window's answers did not end the probe")
        // The probe's own answers: one round, then the window it left.
        for _ in 0..<16 { limit.record(seconds: 0.001, inFlight: 16) }
        #expect(!limit.isProbing)
        #expect(limit.limit == 512)
    }

    @Test func anUnusedWindowDoesNotGrow() {
        let limit = Self.settle(roundTrip: 0.1, capacity: 20_000, using: 10)
        #expect(limit.limit == 32)
    }

    @Test func aPathThatGotLongerIsAcceptedAsTheNewNormal() {
        // 2 ms away at first, then 200 ms (a route change), the provider as fast as ever.
        var limit = Self.settle(roundTrip: 0.002, capacity: 3_000, initial: 16)
        let before = limit.limit
        for _ in 0..<400 {
            let inFlight = limit.limit
            let seconds = max(0.2, Double(inFlight) / 50_000)
            for _ in 0..<max(limit.limit, 16) { limit.record(seconds: seconds, inFlight: inFlight) }
        }
        #expect(limit.limit > before, "the window opened again: \(before) → \(limit.limit)")
    }

    @Test func itStaysWithinItsBounds() {
        var limit = ConcurrencyLimit(range: 16...64, initial: 1_000)
        #expect(limit.limit == 64)
        for _ in 0..<10_000 { limit.record(seconds: 5, inFlight: 64) }
        for _ in 0..<10_000 { limit.record(seconds: 0.001, inFlight: 64) }
        for _ in 0..<10_000 { limit.record(seconds: 60, inFlight: 64) }
        #expect(limit.limit >= 16 && limit.limit <= 64)
    }
}
