import Dispatch
import Foundation

/// Runs `body` on `count` threads of their own (not a queue's workers, which a two-core machine would run two at a
/// time), released together once all are up; returns when all have finished.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            ready.signal()
            go.wait()
            body(index)
            finished.signal()
        }.start()
    }
    for _ in 0..<count { ready.wait() }
    for _ in 0..<count { go.signal() }
    for _ in 0..<count { finished.wait() }
}
