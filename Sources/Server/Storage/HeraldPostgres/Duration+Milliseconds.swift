extension Duration {
    /// Whole milliseconds, for poll(2) and semaphore timeouts.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(clamping: seconds) &* 1000 &+ Int(attoseconds / 1_000_000_000_000_000)
    }
}
