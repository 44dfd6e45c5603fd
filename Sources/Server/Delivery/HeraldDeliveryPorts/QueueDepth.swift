/// Jobs per status, for `/metrics`.
public struct QueueDepth: Sendable, Equatable {
    /// Jobs waiting (including retries and credential waits).
    public var queued: Int
    /// Jobs due now.
    public var due: Int
    /// Jobs under a lease.
    public var sending: Int

    /// Counts.
    public init(queued: Int, due: Int, sending: Int) {
        self.queued = queued
        self.due = due
        self.sending = sending
    }
}
