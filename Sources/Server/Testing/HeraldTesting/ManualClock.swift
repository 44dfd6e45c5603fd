import HeraldModel
import Synchronization

/// A clock a test sets and moves: nothing it drives waits for real time. Sleepers wake when `advance` passes
/// their deadline.
///
/// ```swift
/// let clock = ManualClock()
/// let scheduler = ReminderScheduler(…, clock: clock.wallClock, …)
/// clock.advance(by: .seconds(60))   // the next pass runs now
/// ```
public final class ManualClock: Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Timestamp
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Timestamp
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    /// A clock reading `start`.
    public init(start: Timestamp = Timestamp(milliseconds: 1_800_000_000_000)) {
        state = Mutex(State(now: start))
    }

    /// The time now.
    public var now: Timestamp { state.withLock { $0.now } }

    /// How many tasks are sleeping on it.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward, waking every sleeper whose deadline it reaches.
    public func advance(by duration: Duration) { set(now.adding(duration)) }

    /// Sets the clock (forward or back), waking every sleeper whose deadline it reaches.
    public func set(_ time: Timestamp) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = time
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The clock to hand to what is tested.
    public var wallClock: WallClock {
        WallClock({ [self] in now }, sleep: { [self] deadline in try await sleep(until: deadline) })
    }

    private func sleep(until deadline: Timestamp) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Bool in
                    if state.now >= deadline || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
