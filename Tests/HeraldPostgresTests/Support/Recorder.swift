import Dispatch
import Synchronization

/// Collects values handed over from other threads (notification handlers) and waits for the ones a test expects.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    /// Records `value` and wakes a waiting test.
    func record(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    /// What arrived so far.
    var all: [Value] { values.withLock { $0 } }

    /// Waits until `condition` holds for what arrived (generous: a loaded two-core machine is slow), and says
    /// whether it did.
    func wait(timeout: Duration = .seconds(30), until condition: ([Value]) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + .seconds(Int(timeout.components.seconds))
        while true {
            if values.withLock({ condition($0) }) { return true }
            if arrived.wait(timeout: deadline) == .timedOut { return values.withLock { condition($0) } }
        }
    }
}
