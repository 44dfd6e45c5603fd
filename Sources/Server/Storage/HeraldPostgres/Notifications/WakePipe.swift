import Foundation

/// A pipe the listener thread polls beside its socket, so that another thread can wake it (a new channel to
/// LISTEN on, a stop) without a timer.
final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() throws(PostgresError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw PostgresError(.unableToConnect, "cannot create the listener's wake-up pipe (errno \(errno))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The descriptor to poll for reading.
    var descriptor: Int32 { readEnd }

    /// Wakes the poller (a full pipe already will).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
