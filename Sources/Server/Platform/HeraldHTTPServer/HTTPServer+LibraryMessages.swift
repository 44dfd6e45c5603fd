import HeraldModel
import Synchronization

/// libmicrohttpd's own messages (a malformed head, a connection reset, a socket error), through the server's
/// logger — structured, in JSON under `--log-format json` — instead of raw lines on standard error. A flood of
/// them (12,000 in 37 s of slow headers) would drown the log: at most one is written a second, at warning with
/// `mhd.message`, the next one saying how many were left out meanwhile (`mhd.suppressed`).
extension HTTPServer {
    /// Counts and times the library's messages.
    final class LibraryMessages: Sendable {
        private struct State {
            var lastWritten: UInt64 = 0
            var suppressed = 0
            var written = false
        }

        private let state = Mutex(State())

        /// Whether a message at `now` (monotonic nanoseconds) is written, and how many were left out before it.
        func admit(at now: UInt64) -> (write: Bool, suppressed: Int) {
            state.withLock { state in
                guard !state.written || now >= state.lastWritten + 1_000_000_000 else {
                    state.suppressed += 1
                    return (false, 0)
                }
                let suppressed = state.suppressed
                state = State(lastWritten: now, suppressed: 0, written: true)
                return (true, suppressed)
            }
        }
    }

    /// A message of libmicrohttpd's.
    func libraryMessage(_ text: String) {
        let admitted = libraryMessages.admit(at: MonotonicTime.now())
        guard admitted.write else { return }
        var metadata = ["mhd.message": text.trimmingCharacters(in: .whitespacesAndNewlines)]
        if admitted.suppressed > 0 { metadata["mhd.suppressed"] = String(admitted.suppressed) }
        logger.warning("libmicrohttpd", metadata)
    }
}

/// libmicrohttpd's logger, as `herald_mhd_log` in the C shim calls it: `context` is the server (unretained: it
/// outlives its daemon).
@_cdecl("herald_mhd_log_message")
func heraldMHDLogMessage(_ context: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {
    guard let context, let message else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().libraryMessage(String(cString: message))
}
