import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Signals passed on to Swift code, caught from the moment `watch` returns.
///
/// Dispatch's signal sources are not used for this: on Linux one is armed on Dispatch's own thread some time after
/// `resume()`, and a signal that comes before — ignored meanwhile, so that it does not kill the process — is lost.
/// A process started and stopped at once (a test, a supervisor restarting it) then never stops. Here `sigaction`
/// installs, before `watch` returns, a handler that writes the signal's number into a pipe (all a handler may
/// safely do); a thread of the relay's own reads the pipe and calls the watchers.
///
/// ```swift
/// let watch = SignalRelay.shared.watch([SIGTERM, SIGINT]) { number in group.stop() }
/// defer { watch.cancel() }
/// ```
package final class SignalRelay: Sendable {
    /// The process's relay (a process has one set of signal handlers).
    package static let shared = SignalRelay()

    private struct Watcher {
        let numbers: Set<Int32>
        let handler: @Sendable (Int32) -> Void
    }

    private struct State {
        var watchers: [Int: Watcher] = [:]
        var nextID = 0
        var installed: Set<Int32> = []
    }

    private let state = Mutex(State())

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("cannot make the signal pipe: errno \(errno)") }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in [readEnd, writeEnd] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A full pipe drops the signal rather than blocking the handler (and the thread it interrupted).
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        signalRelayWriteEnd = writeEnd
        let thread = Thread { [self] in
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                let handlers = self.state.withLock { state in
                    state.watchers.values.filter { $0.numbers.contains(Int32(number)) }.map(\.handler)
                }
                for handler in handlers { handler(Int32(number)) }
            }
        }
        thread.name = "herald-signals"
        thread.start()
    }

    /// Calls `handler` (on the relay's thread) with each of `numbers` the process receives from now on, until the
    /// watch is cancelled. A signal no watch is watching is dropped: once watched, it no longer has its default
    /// effect (ending the process), also after the watch is cancelled.
    package func watch(_ numbers: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) -> Watch {
        let id = state.withLock { state in
            for number in numbers where !state.installed.contains(number) {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = relaySignal
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                guard sigaction(number, &action, nil) == 0 else { fatalError("cannot catch signal \(number)") }
                state.installed.insert(number)
            }
            defer { state.nextID += 1 }
            state.watchers[state.nextID] = Watcher(numbers: Set(numbers), handler: handler)
            return state.nextID
        }
        return Watch(relay: self, id: id)
    }

    fileprivate func cancel(_ id: Int) { _ = state.withLock { $0.watchers.removeValue(forKey: id) } }

    /// A watch `SignalRelay.watch` made.
    package struct Watch: Sendable {
        fileprivate let relay: SignalRelay
        fileprivate let id: Int

        /// Stops calling this watch's handler.
        package func cancel() { relay.cancel(id) }
    }
}

/// The relay pipe's write end, set once before any handler is installed (so the handler only ever reads it).
nonisolated(unsafe) private var signalRelayWriteEnd: Int32 = -1

/// The signal handler: writes the number into the relay's pipe, and nothing more (`write` is async-signal-safe).
private func relaySignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalRelayWriteEnd, &byte, 1)
    errno = saved
}
