import HeraldModel
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
///
/// When even the reserve is full (a slow-header flood from many addresses), a new connection does not wait in the
/// kernel's accept backlog behind the flood's reconnects: libmicrohttpd may accept `evictionHeadroom` more, and
/// each connection accepted past the places shuts down the one that has waited longest for its request head —
/// a client that sends its head at once (a monitor, an app) gets in, and is answered (or 503) at once.
final class ConnectionGuard: Sendable {
    /// Connections libmicrohttpd may hold beyond the places, while those shut down to make room close.
    static let evictionHeadroom = 256

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
        /// Connections admitted into the reserve.
        var reservedLimit: Int = 0
        /// Most connections from one client address.
        var perAddressLimit: Int
        /// Nanoseconds a connection may wait for its request head.
        var headTimeout: UInt64
        /// Nanoseconds a reserved or refused connection may wait for its request head.
        var shortHeadTimeout: UInt64
        /// Nanoseconds between sweeps of the reaper.
        var sweepInterval: UInt64 = 100_000_000
        /// Addresses the per-address limit does not apply to: proxies carrying many clients' connections.
        var trustedProxies: TrustedProxies = .none
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
        /// Entries not shut down.
        var live = 0
        /// Sockets in the order they began waiting for a head, with when (a socket whose entry no longer matches is
        /// skipped): the front is the connection to shut down when a new one needs its place.
        var waiting: [(socket: Int32, since: UInt64)] = []
        var waitingStart = 0

        /// Shuts `socket` down (libmicrohttpd then sees it end and closes it). Only under the registry's lock, so
        /// libmicrohttpd cannot have closed (and reused) the number meanwhile.
        mutating func shutDown(_ socket: Int32) {
            Glibc.shutdown(socket, Int32(SHUT_RDWR))
            entries[socket]?.shutDown = true
            live -= 1
        }

        mutating func startedWaiting(_ socket: Int32, at since: UInt64) {
            waiting.append((socket, since))
        }

        /// Shuts down the connection that has waited longest for its head, other than `socket`; false if none.
        mutating func evictOldestWaiting(except socket: Int32) -> Bool {
            while waitingStart < waiting.count {
                let (candidate, since) = waiting[waitingStart]
                waitingStart += 1
                guard candidate != socket, let entry = entries[candidate], entry.waitingForHead, !entry.shutDown,
                    entry.since == since
                else { continue }
                shutDown(candidate)
                return true
            }
            return false
        }

        /// Drops the order's stale positions once they outnumber the live ones.
        mutating func compactWaiting() {
            guard waiting.count - waitingStart > 2 * entries.count + 1024 || waitingStart > 4096 else { return }
            waiting = waiting[waitingStart...].filter { position in
                entries[position.socket].map { $0.waitingForHead && !$0.shutDown && $0.since == position.since }
                    ?? false
            }
            waitingStart = 0
        }
    }

    private let limits: Limits
    private let registry = Mutex(Registry())
    private let reaper = Mutex<(any DispatchSourceTimer)?>(nil)
    private let reaped = Atomic<Int>(0)
    private let evicted = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)

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

    /// Connections shut down to make room for a newer one when every place was taken, since start.
    var evictedCount: Int { evicted.load(ordering: .relaxed) }

    /// Connections accepted since start.
    var acceptedCount: Int { accepted.load(ordering: .relaxed) }

    /// Connections open now (and, of them, admitted normally).
    var counts: (open: Int, normal: Int) { registry.withLock { ($0.entries.count, $0.normal) } }

    /// A connection was accepted on `socket` from `address`.
    func opened(socket: Int32, address: String) {
        let now = MonotonicTime.now()
        registry.withLock { registry in
            let fromAddress = registry.perAddress[address, default: 0]
            let admission: Admission
            if fromAddress >= limits.perAddressLimit && !limits.trustedProxies.contains(address) {
                admission = .overAddressLimit
            } else if registry.normal >= limits.connectionLimit {
                admission = .reserved
            } else {
                admission = .normal
            }
            if admission == .normal { registry.normal += 1 }
            registry.perAddress[address] = fromAddress + 1
            registry.entries[socket] = Entry(address: address, admission: admission, since: now)
            registry.live += 1
            registry.startedWaiting(socket, at: now)
            // Past every place: make room rather than leave the next client in the accept backlog — unless the
            // newcomer's own address is over its limit (it would only be refused): then it goes.
            if registry.live > limits.connectionLimit + limits.reservedLimit {
                if admission == .overAddressLimit {
                    registry.shutDown(socket)
                    evicted.add(1, ordering: .relaxed)
                } else if registry.evictOldestWaiting(except: socket) {
                    evicted.add(1, ordering: .relaxed)
                }
            }
        }
        // Counted once registered: whoever sees the count sees the connection's admission.
        accepted.add(1, ordering: .relaxed)
    }

    /// The connection on `socket` closes (called before libmicrohttpd closes the socket).
    func closed(socket: Int32) {
        registry.withLock { registry in
            guard let entry = registry.entries.removeValue(forKey: socket) else { return }
            if entry.admission == .normal { registry.normal -= 1 }
            if !entry.shutDown { registry.live -= 1 }
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
            registry.startedWaiting(socket, at: now)
        }
    }

    /// Shuts down every socket past its head deadline at `now`.
    func sweep(now: UInt64) {
        registry.withLock { registry in
            for (socket, entry) in registry.entries where entry.waitingForHead && !entry.shutDown {
                let allowed = entry.admission == .normal ? limits.headTimeout : limits.shortHeadTimeout
                guard now > entry.since, now - entry.since > allowed else { continue }
                registry.shutDown(socket)
                reaped.add(1, ordering: .relaxed)
            }
            registry.compactWaiting()
        }
    }
}
