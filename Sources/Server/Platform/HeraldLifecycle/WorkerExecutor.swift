import Foundation

/// A thread of its own for one worker's tasks: a worker blocking in a C library or a database call holds up
/// nothing else, and nothing else (tests blocking the shared pool, a busy request) holds it up.
///
/// ```swift
/// let executor = WorkerExecutor(name: "herald-delivery")
/// let task = Task(executorPreference: executor) { try await worker.run() }
/// ```
package final class WorkerExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `stopped` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    /// Starts the thread, named `name`.
    package init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread finish once the jobs queued have run.
    package func shutdown() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
