import HeraldModel
import CNghttp2
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One thread of an ``HTTP2Client``: an epoll loop over its connections, the ``ConnectionPool`` of each origin it
/// has sent to, and the slots of its requests.
///
/// Other threads only touch the inbox (under its mutex) and the atomics; everything else is confined to the
/// thread running ``run()``, which is why this is `@unchecked Sendable`. A thread that queues work while the loop
/// sleeps (or is about to) wakes it through an eventfd; a busy loop finds the work when it next looks, without a
/// wake-up per request.
///
/// Each pass of the loop: take the inbox (new requests go to their pool), run the pools' timers when due, write
/// what the connections have to send (one TLS write for many streams), sleep in `epoll_wait`, then read what
/// arrived. nghttp2's callbacks only record events and feed the pools; the actions the pools answer with (send,
/// reset, close, complete) run between connections, never inside a callback.
final class ClientEventLoop: @unchecked Sendable {
    /// Work handed to the loop by other threads.
    struct Inbox {
        var requests: [PendingRequest] = []
        var cancellations: [RequestCancellation] = []
        var resolutions: [(ConnectionID, Result<[SocketAddress], HTTPClientError>)] = []
        /// A new limit of connections per origin (``HTTP2Client/limitConnections(to:)``), not yet applied.
        var connectionLimit: Int?
        var isClosed = false
        /// Set by the loop, under the lock, when it found the inbox empty and is going to wait.
        var isSleeping = false

        var isEmpty: Bool {
            requests.isEmpty && cancellations.isEmpty && resolutions.isEmpty && connectionLimit == nil
        }

        /// Called under the lock after adding work: whether the loop must be woken for it.
        mutating func needsWakeUp() -> Bool {
            defer { isSleeping = false }
            return isSleeping
        }
    }

    /// A pool and the origin it serves.
    struct PoolEntry {
        let origin: Origin
        var state: ConnectionPool
        /// The pool's statistics as last published.
        var published = HTTP2Client.Statistics()
        /// Its connections open (in `connections`).
        var open = 0
    }

    /// Requests accepted and not yet completed, over all of the client's loops.
    let pending: PendingCount
    let configuration: HTTP2Client.Configuration
    let tls: TLSContext
    /// The settings of a pool made now (its connection limit as last set).
    private(set) var poolSettings: ConnectionPool.Settings
    /// nghttp2's callback table and options, shared by this loop's sessions.
    let http2: HTTP2Callbacks

    private let inbox = Mutex(Inbox())
    private let statistics = Mutex(HTTP2Client.Statistics())
    /// Connections open (connecting, ready or draining) as of the loop's last pass.
    let openConnections = Atomic<Int>(0)
    /// The most of them open to one origin.
    let openConnectionsPerOrigin = Atomic<Int>(0)
    /// The thread running ``run()``, 0 before it starts.
    private let threadID = Atomic<UInt>(0)
    private let epollFD: Int32
    private let wakeFD: Int32
    /// epoll_wait's result array (C `struct epoll_event`s, read through the shim).
    private let events: UnsafeMutableRawPointer?
    private static let maxEvents = 128

    // Owned by the loop thread.
    var slots: [RequestSlot] = []
    private var freeSlots: [Int] = []
    private(set) var pools: [PoolEntry] = []
    private var connections: [Int: ClientConnection] = [:]
    private var actions: [(pool: Int, action: PoolAction)] = []
    private var actionScratch: [PoolAction] = []
    /// Requests whose response is complete, delivered at the next safe point.
    var answered: [RequestID] = []
    private var dirty: [ClientConnection] = []
    /// Monotonic nanoseconds, read once per wake-up.
    private(set) var now: UInt64 = 0
    private var nextTick: UInt64 = 0
    /// Where sockets are read into.
    let readBuffer: UnsafeMutableRawPointer
    static let readBufferSize = 64 * 1024
    /// Header text and name/value pairs of the request being submitted (nghttp2 copies them).
    let headerScratch = ByteBuffer(capacity: 4096)
    var nameValueScratch: [nghttp2_nv] = []

    /// How often request deadlines are checked while requests are pending.
    private static let tickInterval: UInt64 = 50_000_000

    init(
        configuration: HTTP2Client.Configuration, tls: TLSContext, pending: PendingCount
    ) throws(HTTPClientError) {
        self.configuration = configuration
        self.tls = tls
        self.pending = pending
        poolSettings = ConnectionPool.Settings(configuration)
        http2 = try HTTP2Callbacks()
        epollFD = herald_epoll_create()
        wakeFD = herald_eventfd()
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        events = herald_epoll_events_new(Int32(Self.maxEvents))
        guard epollFD >= 0, wakeFD >= 0, events != nil else {
            throw HTTPClientError(code: .other, message: "epoll/eventfd: \(String(cString: strerror(errno)))")
        }
        guard herald_epoll_ctl(epollFD, 0, wakeFD, herald_epoll_in(), 0) == 0 else {
            throw HTTPClientError(code: .other, message: "epoll_ctl: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if epollFD >= 0 { Glibc.close(epollFD) }
        if wakeFD >= 0 { Glibc.close(wakeFD) }
        readBuffer.deallocate()
        free(events)
    }

    // MARK: Any thread

    /// Queues a request; `false` once the loop is closed.
    func submit(_ request: PendingRequest) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return false }
            inbox.requests.append(request)
            if inbox.needsWakeUp() { wake() }
            return true
        }
    }

    /// Asks the loop to cancel the request linked to `cancellation`.
    func cancel(_ cancellation: RequestCancellation) {
        cancellation.isCancelled.store(true, ordering: .releasing)
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.cancellations.append(cancellation)
            if inbox.needsWakeUp() { wake() }
        }
    }

    /// Hands a name resolution done on another thread back to the loop.
    func resolved(_ connection: ConnectionID, _ result: Result<[SocketAddress], HTTPClientError>) {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.resolutions.append((connection, result))
            if inbox.needsWakeUp() { wake() }
        }
    }

    /// Asks the loop to keep at most `limit` connections per origin from now on (0: none).
    func limitConnections(to limit: Int) {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.connectionLimit = limit
            if inbox.needsWakeUp() { wake() }
        }
    }

    /// Tells the loop to fail everything with `.cancelled`, close its connections and return from ``run()``.
    func close() {
        inbox.withLock { inbox in
            guard !inbox.isClosed else { return }
            inbox.isClosed = true
            wake()
        }
    }

    /// What this loop's connections have learned.
    var currentStatistics: HTTP2Client.Statistics { statistics.withLock { $0 } }

    /// Whether the caller is the loop thread (e.g. a completion handler).
    var isCurrentThread: Bool {
        threadID.load(ordering: .acquiring) == Self.currentThreadID()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private static func currentThreadID() -> UInt {
        UInt(pthread_self())
    }

    // MARK: Loop thread

    /// Runs until ``close()``; then fails whatever is left and closes every connection.
    func run() {
        threadID.store(Self.currentThreadID(), ordering: .releasing)
        var requests: [PendingRequest] = []
        var cancellations: [RequestCancellation] = []
        var resolutions: [(ConnectionID, Result<[SocketAddress], HTTPClientError>)] = []
        var connectionLimit: Int?
        now = MonotonicTime.now()
        while true {
            let isClosed = inbox.withLock { inbox in
                inbox.isSleeping = false
                swap(&inbox.requests, &requests)
                swap(&inbox.cancellations, &cancellations)
                swap(&inbox.resolutions, &resolutions)
                swap(&inbox.connectionLimit, &connectionLimit)
                return inbox.isClosed
            }
            now = MonotonicTime.now()
            if isClosed {
                shutDown(leftover: requests)
                return
            }
            if let limit = connectionLimit {
                connectionLimit = nil
                poolSettings.maxConnections = max(0, limit)
                for index in pools.indices {
                    withPool(index) { pool, actions in pool.limitConnections(to: limit, now: now, into: &actions) }
                }
            }
            for request in requests { admit(request) }
            requests.removeAll(keepingCapacity: true)
            for cancellation in cancellations { cancel(linkedTo: cancellation) }
            cancellations.removeAll(keepingCapacity: true)
            for (id, result) in resolutions { connections[id.rawValue]?.resolved(result) }
            resolutions.removeAll(keepingCapacity: true)
            runActions()
            if now >= nextTick { tick() }
            flushConnections()

            let timeout = waitTimeout()
            let sleeps = inbox.withLock { inbox in
                inbox.isSleeping = inbox.isEmpty && !inbox.isClosed
                return inbox.isSleeping
            }
            let count = herald_epoll_wait(epollFD, events, Int32(Self.maxEvents), sleeps ? timeout : 0)
            guard count > 0 else { continue }
            now = MonotonicTime.now()
            for index in 0..<count {
                let key = Int(herald_epoll_event_key(events, index))
                if key == 0 {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                guard let connection = connections[key] else { continue }
                connection.handle(events: herald_epoll_event_flags(events, index))
                runActions()
            }
        }
    }

    /// How long `epoll_wait` may sleep: until the next connection timer, and no longer than a tick while
    /// requests are pending; -1 (for ever) when there is nothing to wait for.
    private func waitTimeout() -> Int32 {
        var wake = UInt64.max
        for pool in pools {
            if !pool.state.isIdle { wake = min(wake, nextTick) }
            if let timer = pool.state.nextTimer() { wake = min(wake, timer) }
        }
        guard wake != .max else { return -1 }
        guard wake > now else { return 0 }
        return Int32(min(60_000, (wake - now + 999_999) / 1_000_000))
    }

    private func tick() {
        nextTick = now + Self.tickInterval
        for index in pools.indices {
            withPool(index) { pool, actions in pool.tick(now: now, into: &actions) }
        }
        runActions()
    }

    private func flushConnections() {
        while !dirty.isEmpty {
            let batch = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in batch {
                connection.isDirty = false
                connection.flush()
            }
            runActions()
        }
    }

    func popFreeSlot() -> Int? { freeSlots.popLast() }

    func freeSlot(_ index: Int) { freeSlots.append(index) }

    /// Adds the pool of `origin`; its connections are numbered from (pool number + 1) · 2³², so no two pools of
    /// the loop share a connection id (and 0 stays the eventfd's).
    func addPool(_ origin: Origin) {
        let state = ConnectionPool(settings: poolSettings, firstConnectionID: (pools.count + 1) << 32)
        pools.append(PoolEntry(origin: origin, state: state))
    }

    /// Marks `connection` as having something to send, written at the end of the pass.
    func markDirty(_ connection: ClientConnection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    // MARK: Pools and actions

    /// Calls `body` with pool `index` and queues the actions it answers with.
    @discardableResult
    func withPool<Result>(_ index: Int, _ body: (inout ConnectionPool, inout [PoolAction]) -> Result) -> Result {
        let result = body(&pools[index].state, &actionScratch)
        for action in actionScratch { actions.append((index, action)) }
        actionScratch.removeAll(keepingCapacity: true)
        return result
    }

    /// Performs the queued actions, then delivers the completed responses. Called only between connections'
    /// events, never from inside an nghttp2 callback.
    func runActions() {
        // Before any completion runs: a caller that reads the statistics after its answer sees what led to it.
        publishStatistics()
        repeat {
            var index = 0
            while index < actions.count {
                let (pool, action) = actions[index]
                index += 1
                perform(action, pool: pool)
            }
            actions.removeAll(keepingCapacity: true)
            if !answered.isEmpty {
                let done = answered
                answered.removeAll(keepingCapacity: true)
                for id in done { succeed(id) }
            }
        } while !actions.isEmpty || !answered.isEmpty
        publishOpenConnections()
    }

    private func publishOpenConnections() {
        openConnections.store(connections.count, ordering: .relaxed)
        openConnectionsPerOrigin.store(pools.reduce(0) { max($0, $1.open) }, ordering: .relaxed)
    }

    private func perform(_ action: PoolAction, pool: Int) {
        switch action {
        case .connect(let id):
            let connection = ClientConnection(id: id, pool: pool, origin: pools[pool].origin, loop: self)
            connections[id.rawValue] = connection
            pools[pool].open += 1
            connection.start()
        case .submit(let request, let id, let streamID):
            let index = RequestSlot.index(of: request)
            guard let connection = connections[id.rawValue], isActive(request) else {
                withPool(pool) { pool, actions in pool.submitFailed(id, streamID: streamID, now: now, into: &actions) }
                return
            }
            slots[index].resetResponse()
            if connection.submit(request, streamID: streamID) {
                markDirty(connection)
            } else {
                withPool(pool) { pool, actions in pool.submitFailed(id, streamID: streamID, now: now, into: &actions) }
            }
        case .cancelStream(let id, let streamID):
            connections[id.rawValue]?.cancel(streamID: streamID)
        case .ping(let id):
            if let connection = connections[id.rawValue] {
                connection.ping()
                markDirty(connection)
            }
        case .close(let id):
            guard let connection = connections.removeValue(forKey: id.rawValue) else { return }
            pools[connection.pool].open -= 1
            connection.close()
        case .fail(let request, let error):
            finish(request, .failure(error))
        }
    }

    /// A connection ended on its own: forget it and tell its pool.
    func connectionEnded(_ connection: ClientConnection, _ error: HTTPClientError) {
        guard connections.removeValue(forKey: connection.id.rawValue) != nil else { return }
        pools[connection.pool].open -= 1
        withPool(connection.pool) { pool, actions in
            pool.connectionClosed(connection.id, error: error, now: now, into: &actions)
        }
    }

    /// Resolves `host` on another thread; the answer comes back through the inbox.
    func resolve(_ host: String, port: Int, for connection: ConnectionID) {
        DispatchQueue.global().async { [self] in
            resolved(connection, SocketAddress.resolve(host, port: port))
        }
    }

    /// Registers, changes or drops a connection's socket in the epoll set.
    func watch(_ fd: Int32, id: ConnectionID, events: UInt32, registered: UInt32) {
        _ = herald_epoll_ctl(epollFD, registered == 0 ? 0 : 1, fd, events, UInt64(id.rawValue))
    }

    private func publishStatistics() {
        var changed = false
        for index in pools.indices where pools[index].state.statistics != pools[index].published {
            pools[index].published = pools[index].state.statistics
            changed = true
        }
        guard changed else { return }
        var total = HTTP2Client.Statistics()
        for pool in pools { total.add(pool.published) }
        statistics.withLock { $0 = total }
    }

    private func shutDown(leftover: [PendingRequest]) {
        let error = HTTPClientError(code: .cancelled, message: "client shut down")
        for index in pools.indices {
            withPool(index) { pool, actions in pool.shutdown(with: error, into: &actions) }
        }
        runActions()
        for connection in connections.values { connection.close() }
        connections.removeAll()
        for index in pools.indices { pools[index].open = 0 }
        for request in leftover { reject(request, error) }
        let late = inbox.withLock { inbox in
            defer { inbox.requests.removeAll() }
            return inbox.requests
        }
        for request in late { reject(request, error) }
        publishStatistics()
        publishOpenConnections()
    }
}
