import CLibPQ
import Dispatch
import Foundation
import HeraldLifecycle
import HeraldStore
import Synchronization

/// LISTEN/NOTIFY on one dedicated connection: channels listened on for Swift handlers, notifications delivered to
/// them from the listener's own thread.
///
/// The thread waits on the connection's socket (`poll`), reads what arrives (`PQconsumeInput`, `PQnotifies`) and
/// calls the channel's handlers. When the connection is lost it connects again (backing off), LISTENs again, and
/// tells every handler it may have missed notifications (`PostgresNotification.mayHaveMissed`), so that it can
/// re-check. Notifications are sent inside a write transaction with `notify(channel:payload:on:)` and delivered
/// when it commits (never if it rolls back).
///
/// Run it as a service (`run`, under a `WorkerGroup` with the node's others), or start and stop it by hand:
///
/// ```swift
/// let notifications = try PostgresNotifications(url: url)
/// notifications.start()
/// let subscription = notifications.listen("herald.queue") { note in queue.wake() }
/// try database.write { db in
///     …
///     try PostgresNotifications.notify(channel: "herald.queue", payload: "", on: db)
/// }
/// notifications.stop()
/// ```
package final class PostgresNotifications: Worker {
    /// A listener's handler.
    package typealias Handler = @Sendable (PostgresNotification) -> Void

    private struct State {
        var handlers: [String: [UInt64: Handler]] = [:]
        /// Listeners owed a missed-notifications word once their channel is listened on again.
        var unsynced: [UInt64: String] = [:]
        /// Channels LISTENed on the current connection.
        var listening: Set<String> = []
        /// `listen` calls waiting for their channel's LISTEN.
        var waiting: [String: [DispatchSemaphore]] = [:]
        var nextID: UInt64 = 0
        var connected = false
        var connections = 0
        var thread: DispatchSemaphore?  // signalled when the thread ends
        var stopping = false
    }

    private let state = Mutex(State())
    private let settings: PostgresConnectionSettings
    private let options: Options
    private let wake: WakePipe

    /// A listener for the database at `url` (as `PostgresDatabase` reads it). Connects when started.
    package init(url: String, options: Options = Options()) throws {
        self.options = options
        do {
            settings = try PostgresConnectionSettings(url: url, parameters: options.parameters)
            wake = try WakePipe()
        } catch {
            throw error.storeError
        }
    }

    deinit { stop() }

    /// Connections the listener has made so far (a number above 1 means it reconnected).
    package var connectionCount: Int { state.withLock { $0.connections } }

    /// Starts the listener thread and returns once its first attempt to connect has ended (so that `listen` calls
    /// made next wait for their LISTEN when the server is up). Does nothing if it is running.
    package func start() {
        let finished: DispatchSemaphore? = state.withLock { state in
            guard state.thread == nil else { return nil }
            state.stopping = false
            state.thread = DispatchSemaphore(value: 0)
            return state.thread
        }
        guard let finished else { return }
        let firstAttempt = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            loop(firstAttempt: firstAttempt)
            finished.signal()
        }
        thread.name = "herald-postgres-listener"
        thread.start()
        firstAttempt.wait()
    }

    /// Stops the listener thread and closes its connection; returns when it has ended. `start` may follow. Call it
    /// (or cancel `run`) to end the listener: its thread keeps it alive until then. Never from a handler.
    package func stop() {
        guard
            let finished = state.withLock({ state -> DispatchSemaphore? in
                state.stopping = true
                return state.thread
            })
        else { return }
        wake.signal()
        finished.wait()
        state.withLock { $0.thread = nil }
    }

    /// Runs the listener as a service: starts it (unless `start` was called), listens until asked to stop
    /// (`GracefulShutdown`) or cancelled, then stops it — its thread ended, its connection closed — and returns.
    package func run() async {
        start()
        await GracefulShutdown.wait()
        stop()
    }

    /// Calls `handler` for every notification on `channel` (1–63 bytes) sent after this returns, and with
    /// `mayHaveMissed` after any gap in listening. Waits (up to `Options.listenTimeout`) for the LISTEN to take
    /// effect when the listener is connected; otherwise returns at once and the handler hears a missed-notifications
    /// word once it is listening.
    package func listen(_ channel: String, _ handler: @escaping Handler) throws -> ChangeSubscription {
        guard (1...63).contains(channel.utf8.count), !channel.utf8.contains(0) else {
            throw StoreError(.database, "a PostgreSQL channel name is 1 to 63 bytes")
        }
        let (id, waiter) = state.withLock { state -> (UInt64, DispatchSemaphore?) in
            state.nextID += 1
            let id = state.nextID
            state.handlers[channel, default: [:]][id] = handler
            if state.listening.contains(channel) { return (id, nil) }
            if state.connected, !state.stopping {
                let waiter = DispatchSemaphore(value: 0)
                state.waiting[channel, default: []].append(waiter)
                return (id, waiter)
            }
            state.unsynced[id] = channel
            return (id, nil)
        }
        wake.signal()
        if let waiter, waiter.wait(timeout: .now() + .milliseconds(options.listenTimeout.milliseconds)) == .timedOut {
            state.withLock { state in
                if !state.listening.contains(channel), state.handlers[channel]?[id] != nil {
                    state.unsynced[id] = channel
                }
            }
        }
        return ChangeSubscription { [weak self] in self?.remove(id, from: channel) }
    }

    /// Sends `payload` (at most 7,999 bytes) on `channel` from the transaction `connection` is in: listeners hear it
    /// when that transaction commits, never if it rolls back (outside a transaction, at once).
    package static func notify(channel: String, payload: String, on connection: any SQLConnection) throws {
        try connection.execute("SELECT pg_notify(\(channel), \(payload))")
    }

    private func remove(_ id: UInt64, from channel: String) {
        state.withLock { state in
            state.handlers[channel]?[id] = nil
            state.unsynced[id] = nil
            if state.handlers[channel]?.isEmpty == true { state.handlers[channel] = nil }
        }
        wake.signal()
    }

    // MARK: - The listener thread

    private func loop(firstAttempt: DispatchSemaphore) {
        var connection: PostgresConnection?
        var delay = options.reconnectDelay
        var attempted = false
        while !state.withLock({ $0.stopping }) {
            if connection == nil {
                connection = try? PostgresConnection(settings: settings)
                if connection != nil {
                    delay = options.reconnectDelay
                    state.withLock { state in
                        state.connected = true
                        state.connections += 1
                    }
                }
                if !attempted {
                    attempted = true
                    firstAttempt.signal()
                }
                guard connection != nil else {
                    if wait(socket: nil, timeout: delay) == .woken { wake.drain() }
                    delay = min(delay * 2, options.maxReconnectDelay)
                    continue
                }
            }
            guard let current = connection, synchronize(current) else {
                connection = nil
                disconnected()
                continue
            }
            switch wait(socket: current.socket, timeout: options.healthCheckInterval) {
            case .woken: wake.drain()
            case .readable: _ = current.consumeInput()
            case .timedOut: _ = try? current.command("SELECT 1")
            }
            deliver(current.takeNotifications())
            if current.isBroken {
                connection = nil
                disconnected()
            }
        }
        if !attempted { firstAttempt.signal() }
        connection = nil
        disconnected()
    }

    /// LISTENs on channels newly listened to and UNLISTENs from those left; then tells listeners owed a
    /// missed-notifications word, and wakes `listen` calls waiting. False when the connection failed.
    private func synchronize(_ connection: PostgresConnection) -> Bool {
        let (wanted, current) = state.withLock { (Set($0.handlers.keys), $0.listening) }
        let commands =
            wanted.subtracting(current).map { "LISTEN \(Self.quoted($0))" }
            + current.subtracting(wanted).map { "UNLISTEN \(Self.quoted($0))" }
        if !commands.isEmpty {
            do { try connection.command(commands.joined(separator: "; ")) } catch { return false }
        }
        let (missed, waiters) = state.withLock { state -> ([(Handler, PostgresNotification)], [DispatchSemaphore]) in
            state.listening = wanted
            var missed: [(Handler, PostgresNotification)] = []
            for (id, channel) in state.unsynced where wanted.contains(channel) {
                state.unsynced[id] = nil
                if let handler = state.handlers[channel]?[id] {
                    missed.append((handler, PostgresNotification(channel: channel, payload: "", mayHaveMissed: true)))
                }
            }
            var waiters: [DispatchSemaphore] = []
            for channel in wanted { waiters += state.waiting.removeValue(forKey: channel) ?? [] }
            return (missed, waiters)
        }
        for waiter in waiters { waiter.signal() }
        for (handler, notification) in missed { handler(notification) }
        deliver(connection.takeNotifications())
        return true
    }

    /// Forgets the connection: every listener is owed a missed-notifications word, and no `listen` call waits.
    private func disconnected() {
        let waiters = state.withLock { state -> [DispatchSemaphore] in
            state.connected = false
            state.listening = []
            for (channel, handlers) in state.handlers {
                for id in handlers.keys { state.unsynced[id] = channel }
            }
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.signal() }
    }

    private func deliver(_ notifications: [(channel: String, payload: String)]) {
        for (channel, payload) in notifications {
            let handlers = state.withLock { Array(($0.handlers[channel] ?? [:]).values) }
            let notification = PostgresNotification(channel: channel, payload: payload)
            for handler in handlers { handler(notification) }
        }
    }

    private enum WaitOutcome { case readable, woken, timedOut }

    /// Waits until the socket has input, the wake pipe is signalled, or `timeout` passes. A socket in error counts
    /// as readable (reading it then fails).
    private func wait(socket: Int32?, timeout: Duration) -> WaitOutcome {
        var descriptors = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
        if let socket, socket >= 0 { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(clamping: timeout.milliseconds))
        if ready <= 0 { return ready == 0 ? .timedOut : .woken }
        if descriptors.count > 1, descriptors[1].revents != 0 { return .readable }
        return .woken
    }

    /// A channel name as a quoted identifier.
    static func quoted(_ channel: String) -> String {
        "\"" + channel.replacing("\"", with: "\"\"") + "\""
    }
}
