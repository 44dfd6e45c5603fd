import HeraldModel
import Synchronization

/// A signal one task waits for and any thread gives: a wait returns at once if it was given since the last wait
/// returned, else when it is given, when a deadline passes, or when the waiting task is cancelled. A wait may
/// also return spuriously: waiters look again at what they wait for.
///
/// ```swift
/// let wakeup = Wakeup()
/// // elsewhere, on any thread: wakeup.signal()
/// await wakeup.wait(until: deadline, clock: clock)
/// ```
package final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// A wake-up, not yet signalled.
    package init() {}

    /// Wakes the waiter, or the next wait if none is waiting. Signals given meanwhile count once.
    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.signalled = true
            return nil
        }
        waiter?.resume()
    }

    /// Waits for a signal (or cancellation). One task waits at a time.
    package func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.signalled || Task.isCancelled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            // Resumes the waiter (or makes the wait about to start return): a cancelled wait returns at once.
            // Cancelled after a signal resumed it, this leaves one spurious wake-up, which waiters tolerate.
            signal()
        }
    }

    /// Waits for a signal, at most until `deadline` on `clock` (nil: no deadline), or until cancelled.
    package func wait(until deadline: Timestamp?, clock: WallClock) async {
        guard let deadline else { return await wait() }
        let consumed = state.withLock { state -> Bool in
            defer { state.signalled = false }
            return state.signalled
        }
        if consumed { return }
        if clock.now() >= deadline { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask {
                try? await clock.sleep(until: deadline)
            }
            await group.next()
            group.cancelAll()
        }
    }
}
