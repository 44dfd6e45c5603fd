/// Jobs per status, for `/metrics`.
package struct QueueDepth: Sendable, Equatable {
    /// Jobs waiting (including retries and credential waits).
    package var queued: Int
    /// Jobs due now.
    package var due: Int
    /// Jobs under a lease.
    package var sending: Int

    /// Counts.
    package init(queued: Int, due: Int, sending: Int) {
        self.queued = queued
        self.due = due
        self.sending = sending
    }
}
