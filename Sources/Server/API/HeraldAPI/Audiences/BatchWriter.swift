import Foundation

/// Batches' work run one at a time on a thread of the writer's own while the caller goes on (`UserImportStream`
/// reads and parses the next batch of lines while this one is written); `wait()` is the batch's result, or what it
/// threw.
///
/// ```swift
/// let writer = BatchWriter<UserImportResult>()
/// defer { writer.close() }
/// writer.start { try importer.importBatch(lines, businessID: id) }
/// // … parse the next lines …
/// let result = try writer.wait()
/// ```
///
/// One thread for all of an import's batches, not one each: a new thread per batch took a new allocator arena and
/// a new stack each time, and a 100,000-line import's peak memory grew with them (11–17 MB more on a loaded
/// machine, against 0.2 MB on one thread). `close()` ends the thread once the batch it runs, if any, is done —
/// also when the caller never waits (a client that went away mid-body).
final class BatchWriter<Value: Sendable>: @unchecked Sendable {  // the state is guarded by `condition`
    private let condition = NSCondition()
    private var work: (@Sendable () throws -> Value)?
    private var outcome: Result<Value, any Error>?
    private var closed = false
    private var running = false

    /// A writer with nothing to do yet; its thread starts with the first batch.
    init() {}

    /// Starts `work` on the writer's thread. The batch before, if any, must have been waited for.
    func start(_ work: @escaping @Sendable () throws -> Value) {
        condition.lock()
        defer { condition.unlock() }
        precondition(self.work == nil && outcome == nil && !closed, "a batch is still being written")
        self.work = work
        if !running {
            running = true
            let thread = Thread { [self] in runBatches() }
            thread.name = "herald-import"
            thread.start()
        }
        condition.broadcast()
    }

    /// Waits for the batch started last to end: what it returned, or throws what it threw.
    func wait() throws -> Value {
        condition.lock()
        while outcome == nil { condition.wait() }
        let result = outcome!
        outcome = nil
        condition.unlock()
        return try result.get()
    }

    /// Ends the writer's thread once the batch it runs, if any, is done.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func runBatches() {
        condition.lock()
        while true {
            while work == nil, !closed { condition.wait() }
            guard let next = work else { break }
            condition.unlock()
            let result = Result { try next() }
            condition.lock()
            work = nil
            outcome = result
            condition.broadcast()
        }
        running = false
        condition.unlock()
    }
}
