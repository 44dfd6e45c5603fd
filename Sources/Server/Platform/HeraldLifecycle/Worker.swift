/// Long-lived work — the HTTP server, the delivery engine, the scheduler — run by a `WorkerGroup`.
///
/// `run()` works until it is asked to stop (`GracefulShutdown`), then stops gracefully — finishing or handing
/// back what it holds — and returns; cancelling its task stops it at once. Returning early or throwing stops the
/// whole group.
package protocol Worker: Sendable {
    /// Runs until asked to stop or cancelled.
    func run() async throws
}
