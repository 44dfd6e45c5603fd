import HeraldModel
import Testing

@testable import HeraldDelivery

/// A credential's window on its own: refusals for load shrink it once a round trip, successes grow it, the floor
/// and the ceiling hold, slowness does nothing.
@Suite("Congestion window")
struct CongestionWindowTests {
    static let t0 = Timestamp(milliseconds: 1_800_000_000_000)

    func t(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: Self.t0.milliseconds + milliseconds) }

    /// Sends until the window is full; returns how many went.
    func fill(_ window: inout CongestionWindow) -> Int {
        var sent = 0
        while window.hasRoom {
            window.sent()
            sent += 1
        }
        return sent
    }

    @Test("slow start doubles the window each round of successes, up to the ceiling")
    func slowStartDoubles() {
        var window = CongestionWindow(range: 16...1000, initial: 64)
        for expected in [128, 256, 512, 1000] {
            let sent = fill(&window)
            for _ in 0..<sent { window.delivered() }
            #expect(window.limit == expected)
        }
        #expect(window.inFlight == 0 && window.slowStart)
    }

    @Test("a refusal shrinks the window to 0.9 of what was in flight, once for all the pushes sent before it")
    func shedShrinksOncePerRound() {
        var window = CongestionWindow(range: 16...4096, initial: 500)
        #expect(fill(&window) == 500)
        // The provider holds 480 and refuses the other 20, all sent at t(0).
        for index in 0..<20 { window.shed(sentAt: t(0), at: t(1 + Int64(index))) }
        #expect(window.limit == 450, "0.9 × 500, once: the other 19 refusals were of pushes sent before the shrink")
        #expect(window.refusals == 20 && !window.slowStart && window.inFlight == 480)
        #expect(!window.hasRoom, "480 in flight: nothing more until answers bring it under 450")
        // A push sent after the shrink and refused shrinks it again.
        for _ in 0..<100 { window.delivered() }
        window.sent()
        window.shed(sentAt: t(30), at: t(31))
        #expect(window.limit == Int((381.0 * 0.9).rounded(.down)))
    }

    @Test("past slow start the window grows by eight pushes a round of successes, and only while in use")
    func additiveGrowth() {
        var window = CongestionWindow(range: 16...4096, initial: 100)
        _ = fill(&window)
        window.shed(sentAt: t(0), at: t(1))
        #expect(window.limit == 90)
        for _ in 0..<99 { window.delivered() }
        // Round after round at full use: about +8 each.
        for _ in 0..<5 {
            let before = window.size
            let sent = fill(&window)
            for _ in 0..<sent { window.delivered() }
            #expect(window.size - before > 7 && window.size - before < 9)
        }
        // A window less than half used does not grow.
        let idle = window.size
        for _ in 0..<100 {
            window.sent()
            window.delivered()
        }
        #expect(window.size == idle)
    }

    @Test("refusals never take the window below its floor; successes never above its ceiling")
    func floorAndCeiling() {
        var window = CongestionWindow(range: 16...200, initial: 64)
        for round in 0..<30 {
            window.sent()
            window.shed(sentAt: t(Int64(round) * 10 + 5), at: t(Int64(round) * 10 + 6))
        }
        #expect(window.limit == 16)
        for _ in 0..<100 {
            let sent = fill(&window)
            for _ in 0..<sent { window.delivered() }
        }
        #expect(window.limit == 200)
    }

    @Test("answers that are neither successes nor refusals for load (timeouts, dead tokens) move nothing")
    func otherAnswersMoveNothing() {
        var window = CongestionWindow(range: 16...4096, initial: 64)
        _ = fill(&window)
        for _ in 0..<64 { window.answered() }
        #expect(window.limit == 64 && window.inFlight == 0 && window.refusals == 0)
    }
}
