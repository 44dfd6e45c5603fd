import Foundation

/// A few threads of its own running jobs in turn, with a bounded queue: where the server runs the routes that are
/// slow on the CPU (`Router.add(…, offloaded: true)`), so that they never hold up the connections its HTTP
/// threads serve. Threads are started as jobs need them, up to `threadLimit`, and live until `stop()`.
final class WorkerPool: @unchecked Sendable {  // every mutable field is guarded by `condition`
    private let threadLimit: Int
    private let queueLimit: Int
    private let name: String
    private let condition = NSCondition()
    /// The jobs; those taken are nil. A job holds its request (a password, say) and what answers it (the server, which
    /// holds this pool): one kept once done kept all of that alive, the server freed by no one.
    private var queue: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    /// Jobs queued or running.
    private var pending = 0
    private var stopped = false

    /// At most `threads` jobs at once, and `queueLimit` more waiting.
    init(threads: Int, queueLimit: Int, name: String) {
        threadLimit = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        self.name = name
    }

    /// Queues `job`; false (and `job` dropped) when the queue is full or the pool stopped.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, pending < threadLimit + queueLimit else { return false }
        pending += 1
        queue.append(job)
        // A thread more when the idle ones (some perhaps signalled already, not yet awake) are fewer than the jobs.
        if queue.count - head > idle, threads < threadLimit {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
        if idle > 0 { condition.signal() }
        return true
    }

    /// Jobs queued or running.
    var pendingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending
    }

    /// Drops the jobs not started yet and lets the threads end once their current job is done.
    func stop() {
        condition.lock()
        stopped = true
        pending -= queue.count - head
        queue = []
        head = 0
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            if stopped {
                threads -= 1
                condition.unlock()
                return
            }
            if head < queue.count {
                let job = queue[head]!
                queue[head] = nil
                head += 1
                if head >= 64 && head * 2 >= queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                pending -= 1
            } else {
                idle += 1
                condition.wait()
                idle -= 1
            }
        }
    }
}
