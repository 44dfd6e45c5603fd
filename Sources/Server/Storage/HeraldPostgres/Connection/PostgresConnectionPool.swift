import Dispatch
import HeraldStore
import Synchronization

/// Up to `size` connections, made when first needed and kept idle between uses; a broken one is dropped and the
/// next lease makes a new one.
final class PostgresConnectionPool: Sendable {
    private let settings: PostgresConnectionSettings
    private let slots: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let open = Atomic<Int>(0)
    private let acquireTimeout: Duration

    init(settings: PostgresConnectionSettings, size: Int, acquireTimeout: Duration) {
        self.settings = settings
        slots = DispatchSemaphore(value: max(1, size))
        self.acquireTimeout = acquireTimeout
    }

    /// Connections open now, idle or lent.
    var openCount: Int { open.load(ordering: .relaxed) }

    /// A connection for one thread until `release`: an idle one (`reused`: it may have died while idle, which only
    /// using it shows) or a new one. Waits up to the acquire timeout for one to come free.
    func acquire() throws(PostgresError) -> (connection: PostgresConnection, reused: Bool) {
        guard slots.wait(timeout: .now() + .milliseconds(acquireTimeout.milliseconds)) == .success else {
            throw PostgresError(.poolTimeout, "no PostgreSQL connection came free within \(acquireTimeout)")
        }
        while let connection = idle.withLock({ $0.popLast() }) {
            if connection.isIdle {
                connection.statementsStarted = 0
                return (connection, true)
            }
            open.subtract(1, ordering: .relaxed)
        }
        do {
            let connection = try PostgresConnection(settings: settings)
            open.add(1, ordering: .relaxed)
            return (connection, false)
        } catch {
            slots.signal()
            throw error
        }
    }

    /// Takes back a connection: kept if it is alive and outside a transaction, dropped (closed) otherwise.
    func release(_ connection: PostgresConnection) {
        if connection.isIdle {
            idle.withLock { $0.append(connection) }
        } else {
            open.subtract(1, ordering: .relaxed)
        }
        slots.signal()
    }

    /// Closes the idle connections (the lent ones close when released broken, or stay).
    func closeIdle() {
        let closing = idle.withLock { connections in
            defer { connections.removeAll() }
            return connections
        }
        open.subtract(closing.count, ordering: .relaxed)
    }
}
