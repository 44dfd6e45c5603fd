import COpenSSL

/// Reads and clears OpenSSL's per-thread error queue, so that one failure never shows up in a later, unrelated
/// call on the same thread.
enum OpenSSLErrorQueue {
    /// The reason text of the oldest queued error, if any; the queue is empty afterwards.
    static func takeReason() -> String? {
        let first = ERR_get_error()
        ERR_clear_error()
        guard first != 0, let reason = ERR_reason_error_string(first) else { return nil }
        return String(cString: reason)
    }

    /// Empties the queue after a failure that is reported by value (e.g. a signature that does not verify).
    static func clear() {
        ERR_clear_error()
    }
}
