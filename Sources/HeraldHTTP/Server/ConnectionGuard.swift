import Foundation
import Synchronization

/// Who may hold a connection, and for how long without a request head.
///
/// libmicrohttpd's own timeout counts idle time only: a client sending one header byte every few seconds is never
/// idle and holds its connection for ever, and ten thousand such clients hold every connection there is. The guard
/// keeps, for each open socket, its client's address and since when it has been waiting for a complete request
/// head (from the accept, or from the end of the previous request on a kept-alive connection); a reaper timer
/// shuts down any socket that has waited longer than the head deadline, whatever it sent meanwhile. libmicrohttpd
/// then sees the socket end and closes it itself (the guard never closes a socket it does not own, and forgets a
/// socket before libmicrohttpd closes it, so a number reused by a new connection is never touched).
///
/// It also decides how a connection is admitted: past the per-address limit it is answered 503 (and closed) once
/// its head is in; past the global limit, into the reserve, it is served only for the reserved paths (`/healthz`,
/// `/metrics`) and answered 503 otherwise. Both have a short head deadline, so they cannot hold a place either.
final class ConnectionGuard: Sendable {
    /// How a new connection was let in.
    enum Admission: Sendable, Equatable {
        /// Within every limit.
        case normal
        /// Past the global limit: reserved paths only.
        case reserved
        /// Its address holds as many connections as it may: refused.
        case overAddressLimit
    }

    /// The limits enforced.
    struct Limits: Sendable {
        /// Connections admitted normally.
        var connectionLimit: Int
        /// Most connections from one client address.
        var perAddressLimit: Int
        /// Nanoseconds a connection may wait for its request head.
        var headTimeout: UInt64
        /// Nanoseconds a reserved or refused connection may wait for its request head.
        var shortHeadTimeout: UInt64
        /// Nanoseconds between sweeps of the reaper.
        var sweepInterval: UInt64 = 100_000_000
    }

    private struct Entry {
        var address: String
        var admission: Admission
        var waitingForHead = true
        var since: UInt64
        var shutDown = false
    }

    private struct Registry {
        var entries: [Int32: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var normal = 0
    }

    private let limits: Limits
    private let registry = Mutex(Registry())
    private let reaper = Mutex<(any DispatchSourceTimer)?>(nil)
    private let reaped = Atomic<Int>(0)

    init(limits: Limits) {
        self.limits = limits
    }

    /// Starts the reaper: a timer sweeping every `sweepInterval` until `stop()`.
    func start() {
        let interval = DispatchTimeInterval.nanoseconds(Int(limits.sweepInterval))
        reaper.withLock { running in
            running?.cancel()
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "herald-http-guard"))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [self] in sweep(now: MonotonicTime.now()) }
            timer.resume()
            running = timer
        }
    }

    /// Stops the reaper.
    func stop() {
        reaper.withLock { running in
            running?.cancel()
            running = nil
        }
    }

    /// Connections shut down for taking too long over their head, since start.
    var reapedCount: Int { reaped.load(ordering: .relaxed) }

    /// Connections open now (and, of them, admitted normally).
    var counts: (open: Int, normal: Int) { registry.withLock { ($0.entries.count, $0.normal) } }

    /// A connection was accepted on `socket` from `address`.
    func opened(socket: Int32, address: String) {
        let now = MonotonicTime.now()
        registry.withLock { registry in
            let fromAddress = registry.perAddress[address, default: 0]
            let admission: Admission
            if fromAddress >= limits.perAddressLimit {
                admission = .overAddressLimit
            } else if registry.normal >= limits.connectionLimit {
                admission = .reserved
            } else {
                admission = .normal
            }
            if admission == .normal { registry.normal += 1 }
            registry.perAddress[address] = fromAddress + 1
            registry.entries[socket] = Entry(address: address, admission: admission, since: now)
        }
    }

    /// The connection on `socket` closes (called before libmicrohttpd closes the socket).
    func closed(socket: Int32) {
        registry.withLock { registry in
            guard let entry = registry.entries.removeValue(forKey: socket) else { return }
            if entry.admission == .normal { registry.normal -= 1 }
            let left = registry.perAddress[entry.address, default: 1] - 1
            registry.perAddress[entry.address] = left > 0 ? left : nil
        }
    }

    /// A complete request head arrived on `socket`: how its connection was admitted.
    func headReceived(socket: Int32) -> Admission {
        registry.withLock { registry in
            guard var entry = registry.entries[socket] else { return .normal }
            entry.waitingForHead = false
            registry.entries[socket] = entry
            return entry.admission
        }
    }

    /// The request on `socket` is answered: a kept-alive connection waits for its next head from now.
    func requestCompleted(socket: Int32) {
        let now = MonotonicTime.now()
        registry.withLock { registry in
            guard var entry = registry.entries[socket] else { return }
            entry.waitingForHead = true
            entry.since = now
            registry.entries[socket] = entry
        }
    }

    /// Shuts down every socket past its head deadline at `now`.
    func sweep(now: UInt64) {
        registry.withLock { registry in
            for (socket, entry) in registry.entries where entry.waitingForHead && !entry.shutDown {
                let allowed = entry.admission == .normal ? limits.headTimeout : limits.shortHeadTimeout
                guard now > entry.since, now - entry.since > allowed else { continue }
                // Under the lock, so libmicrohttpd cannot have closed (and reused) the number meanwhile.
                Glibc.shutdown(socket, Int32(SHUT_RDWR))
                registry.entries[socket]?.shutDown = true
                reaped.add(1, ordering: .relaxed)
            }
        }
    }
}
