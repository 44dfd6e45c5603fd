import Foundation

/// Monotonic time for deadlines, PINGs and timeouts: the HTTP server's and the HTTP/2 client's.
package enum MonotonicTime {
    /// Nanoseconds since an arbitrary fixed point.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Nanoseconds in `duration`, at least 0 and at most about 126 years.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        guard seconds < 4_000_000_000 else { return 4_000_000_000 * 1_000_000_000 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
