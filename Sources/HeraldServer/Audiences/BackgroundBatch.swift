import Foundation

/// One batch's work running on a thread of its own while the caller goes on (`UserImportStream` reads and parses
/// the next batch of lines while this one is written); `wait()` is its result, or what it threw.
///
/// ```swift
/// let writing = BackgroundBatch { try importer.importBatch(lines, businessID: id) }
/// // … parse the next lines …
/// let result = try writing.wait()
/// ```
///
/// A thread per batch, ending with it: nothing outlives the work, even when the caller never waits (a client that
/// went away mid-body), and a batch of a thousand lines is worth far more than starting a thread.
final class BackgroundBatch<Value: Sendable>: @unchecked Sendable {  // `outcome` is guarded by `condition`
    private let condition = NSCondition()
    private var outcome: Result<Value, any Error>?

    /// Starts `work` at once on a thread of its own.
    init(_ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let result = Result { try work() }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "herald-import"
        thread.start()
    }

    /// Waits for the work to end: what it returned, or throws what it threw.
    func wait() throws -> Value {
        condition.lock()
        while outcome == nil { condition.wait() }
        let result = outcome!
        condition.unlock()
        return try result.get()
    }
}
