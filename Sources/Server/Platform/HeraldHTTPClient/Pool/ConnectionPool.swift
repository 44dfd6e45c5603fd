/// The requests and connections of one origin as a state machine: events in, ``PoolAction``s out. It decides
/// which request goes on which connection, when connections open and close, what a `GOAWAY`, a reset stream or a
/// silent connection means for each request, and when to PING. No I/O and no clock of its own: every event
/// carries `now` (monotonic nanoseconds), so tests drive it in microseconds.
///
/// ```swift
/// var pool = ConnectionPool(settings: .init())
/// var actions: [PoolAction] = []
/// pool.enqueue(RequestID(rawValue: 1), deadline: .max, now: 0, into: &actions)  // [.connect(c)]
/// pool.connectionReady(c, maxConcurrentStreams: 100, supportsPing: true, now: 1, into: &actions)
/// // [.submit(request 1, on: c, streamID: 1)]
/// ```
///
/// Rules:
/// - A request waits only for a free stream: it goes to the ready connection with the most free streams, each
///   connection taking at most what its server's SETTINGS_MAX_CONCURRENT_STREAMS allows (followed as it changes)
///   and ``Settings/maxStreamsPerConnection``. There is no window over the whole pool.
/// - When requests wait and no connection has room, one more connection opens (one at a time, up to
///   ``Settings/maxConnections``); ``Settings/minConnections`` are opened with the first request and kept.
/// - A response that is complete succeeds, however its stream ends (`RST_STREAM(NO_ERROR)` included). A stream
///   refused unprocessed (`REFUSED_STREAM`, above a `GOAWAY`'s last stream id) is sent again at once, at the
///   front of the queue; any other reset fails with `.connectionReset` and the HTTP/2 code.
/// - A `GOAWAY` drains its connection: streams up to the last stream id finish there, it takes no new ones, and
///   it closes when the last one ends.
/// - A connection that received nothing for a while gets a PING; one not acknowledged in time is dead: its
///   streams fail with `.connectionReset` and it closes.
/// - A connection attempt that fails fails the waiting requests, unless another connection is ready or opening.
struct ConnectionPool: Sendable {
    private(set) var settings: Settings
    private(set) var connections: [PoolConnection] = []
    /// Requests waiting for a stream, in order.
    private(set) var waiting = RequestQueue<PoolConnection.Entry>()
    private(set) var statistics = HTTP2Client.Statistics()
    private var nextConnectionNumber: Int
    /// When a connection attempt last failed.
    private var lastFailedAttempt: UInt64?

    /// A pool whose connections are numbered from `firstConnectionID`.
    init(settings: Settings, firstConnectionID: Int = 1) {
        self.settings = settings
        nextConnectionNumber = firstConnectionID
    }

    /// Whether no request is waiting or in flight.
    var isIdle: Bool { waiting.isEmpty && connections.allSatisfy { $0.streams.isEmpty } }

    /// Requests sent and not yet answered.
    var inFlight: Int { connections.reduce(0) { $0 + $1.streams.count } }

    // MARK: Requests

    /// A new request; it fails with `.timeout` if still unanswered at `deadline`.
    mutating func enqueue(_ request: RequestID, deadline: UInt64, now: UInt64, into actions: inout [PoolAction]) {
        waiting.append(PoolConnection.Entry(request: request, deadline: deadline))
        dispatch(now: now, into: &actions)
    }

    /// Fails `request` with `error` wherever it is: dropped from the queue, or its stream abandoned. `false` if the
    /// pool no longer holds it.
    @discardableResult
    mutating func cancel(
        _ request: RequestID, with error: HTTPClientError, now: UInt64, into actions: inout [PoolAction]
    ) -> Bool {
        if !waiting.removeAll(where: { $0.request == request }).isEmpty {
            actions.append(.fail(request, error))
            return true
        }
        for index in connections.indices {
            guard let streamID = connections[index].streams.first(where: { $0.value.request == request })?.key else {
                continue
            }
            connections[index].streams[streamID] = nil
            actions.append(.cancelStream(connections[index].id, streamID: streamID))
            actions.append(.fail(request, error))
            settle(index, now: now, into: &actions)
            dispatch(now: now, into: &actions)
            return true
        }
        return false
    }

    /// From now on at most `limit` connections (0: none). Connections beyond it drain, the least busy first: they
    /// take no new stream and close when their last one ends.
    mutating func limitConnections(to limit: Int, now: UInt64, into actions: inout [PoolAction]) {
        settings.maxConnections = max(0, limit)
        let open = connections.indices.filter { connections[$0].state != .draining }
        let excess = open.count - settings.maxConnections
        if excess > 0 {
            let drained = open.sorted { connections[$0].streams.count < connections[$1].streams.count }.prefix(excess)
            for index in drained { connections[index].state = .draining }
            for index in drained.sorted(by: >) { closeIfDrained(index, into: &actions) }
        }
        dispatch(now: now, into: &actions)
    }

    // MARK: Connection events

    /// The connection is up and its server's first SETTINGS arrived (HTTP/1.1: it is up, with one stream).
    mutating func connectionReady(
        _ id: ConnectionID, maxConcurrentStreams: Int, supportsPing: Bool, now: UInt64,
        into actions: inout [PoolAction]
    ) {
        guard let index = index(of: id) else { return }
        if connections[index].state == .connecting { connections[index].state = .ready }
        connections[index].peerMaxConcurrentStreams = max(0, maxConcurrentStreams)
        connections[index].supportsPing = supportsPing
        connections[index].lastReceived = now
        connections[index].idleSince = now
        closeIfDrained(index, into: &actions)
        dispatch(now: now, into: &actions)
    }

    /// The server announced a new SETTINGS_MAX_CONCURRENT_STREAMS. Streams above a lowered limit keep running; no
    /// new one starts until the connection is below it.
    mutating func settingsChanged(
        _ id: ConnectionID, maxConcurrentStreams: Int, now: UInt64, into actions: inout [PoolAction]
    ) {
        guard let index = index(of: id) else { return }
        connections[index].peerMaxConcurrentStreams = max(0, maxConcurrentStreams)
        dispatch(now: now, into: &actions)
    }

    /// Something arrived on the connection: it is alive.
    mutating func received(_ id: ConnectionID, now: UInt64) {
        guard let index = index(of: id) else { return }
        connections[index].lastReceived = now
    }

    /// The connection's PING was acknowledged.
    mutating func pingAcknowledged(_ id: ConnectionID, now: UInt64) {
        guard let index = index(of: id) else { return }
        connections[index].pingSentAt = nil
        connections[index].lastReceived = now
    }

    /// A stream ended. `responseComplete`: the whole response arrived (END_STREAM); `errorCode`: the code it was
    /// closed with (`RST_STREAM`'s, or `noError`). Returns the request when its response is the answer; failures
    /// and resends come as actions; `nil` also for a stream the pool no longer tracks.
    mutating func streamClosed(
        _ id: ConnectionID, streamID: Int32, responseComplete: Bool, errorCode: HTTP2ErrorCode, now: UInt64,
        into actions: inout [PoolAction]
    ) -> RequestID? {
        guard let index = index(of: id), let entry = connections[index].streams.removeValue(forKey: streamID) else {
            return nil
        }
        var answered: RequestID?
        if responseComplete {
            connections[index].completedStreams += 1
            answered = entry.request
        } else if errorCode == .refusedStream {
            resend(entry, afterGoAway: false, code: errorCode, into: &actions)
        } else if let goAway = connections[index].goAway, streamID > goAway.lastStreamID {
            resend(entry, afterGoAway: true, code: goAway.errorCode, into: &actions)
        } else {
            statistics.streamsReset += 1
            let message = "the server reset the stream before the response was complete"
            actions.append(
                .fail(
                    entry.request, HTTPClientError(code: .connectionReset, message: message, http2ErrorCode: errorCode))
            )
        }
        settle(index, now: now, into: &actions)
        dispatch(now: now, into: &actions)
        return answered
    }

    /// The driver could not start the stream it was asked to (the session refused it): the request goes back to
    /// the queue, and the connection takes no more streams.
    mutating func submitFailed(_ id: ConnectionID, streamID: Int32, now: UInt64, into actions: inout [PoolAction]) {
        guard let index = index(of: id), let entry = connections[index].streams.removeValue(forKey: streamID) else {
            return
        }
        connections[index].state = .draining
        resend(entry, afterGoAway: false, code: .refusedStream, into: &actions)
        settle(index, now: now, into: &actions)
        dispatch(now: now, into: &actions)
    }

    /// The server sent GOAWAY: streams above `lastStreamID` were not processed and are sent again elsewhere; the
    /// others finish here; the connection takes no new stream and closes when they are done.
    mutating func goAwayReceived(
        _ id: ConnectionID, lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: String, now: UInt64,
        into actions: inout [PoolAction]
    ) {
        guard let index = index(of: id) else { return }
        statistics.goAwaysReceived += 1
        if errorCode != .noError { statistics.goAwayErrors += 1 }
        statistics.lastGoAway = HTTP2Client.GoAway(
            errorCode: errorCode, lastStreamID: lastStreamID, debugData: debugData, receivedAt: now)
        // A second GOAWAY may only lower the last stream id.
        let last = min(lastStreamID, connections[index].goAway?.lastStreamID ?? lastStreamID)
        connections[index].goAway = (last, errorCode)
        connections[index].state = .draining
        // Highest first, each to the front: the queue keeps them in their original order.
        for streamID in connections[index].streams.keys.filter({ $0 > last }).sorted(by: >) {
            let entry = connections[index].streams.removeValue(forKey: streamID)!
            resend(entry, afterGoAway: true, code: errorCode, into: &actions)
        }
        settle(index, now: now, into: &actions)
        dispatch(now: now, into: &actions)
    }

    /// The connection will take no new streams and closes after its current ones (HTTP/1.1 `Connection: close`).
    mutating func drain(_ id: ConnectionID, now: UInt64, into actions: inout [PoolAction]) {
        guard let index = index(of: id) else { return }
        connections[index].state = .draining
        settle(index, now: now, into: &actions)
        dispatch(now: now, into: &actions)
    }

    /// The connection ended on its own (connect or TLS failure, closed by the server, I/O or protocol error). Its
    /// streams fail with `error` (with the GOAWAY's code when the server had sent one); if it never became ready (or
    /// closed before completing any response) and no other connection is ready or opening, the waiting requests
    /// fail with `error` too.
    mutating func connectionClosed(
        _ id: ConnectionID, error: HTTPClientError, now: UInt64, into actions: inout [PoolAction]
    ) {
        guard let index = index(of: id) else { return }
        let connection = connections.remove(at: index)
        fail(connection, error, into: &actions)
        // Never ready, or ready but closed before answering anything (and not sent away by a GOAWAY): the attempt
        // failed, and requests waiting for it should hear so rather than wait for yet another attempt.
        if connection.state == .connecting || (connection.completedStreams == 0 && connection.goAway == nil) {
            lastFailedAttempt = now
            statistics.connectionFailures += connection.state == .connecting ? 1 : 0
            if !connections.contains(where: { $0.state != .draining }) {
                for entry in waiting.removeAllElements() { actions.append(.fail(entry.request, error)) }
            }
        }
        dispatch(now: now, into: &actions)
    }

    // MARK: Time

    /// Runs the timers: request deadlines (queued and in flight), connect timeouts, PINGs and their deadlines,
    /// idle connections. Call it at least every few tens of milliseconds while requests are pending.
    mutating func tick(now: UInt64, into actions: inout [PoolAction]) {
        for entry in waiting.removeAll(where: { $0.deadline <= now }) {
            actions.append(.fail(entry.request, Self.timeoutError))
        }
        var index = connections.count - 1
        while index >= 0 {
            defer { index -= 1 }
            let connection = connections[index]
            if connection.state == .connecting {
                if now &- connection.openedAt >= settings.connectTimeout {
                    actions.append(.close(connection.id))
                    let message = "no connection within \(settings.connectTimeout / 1_000_000) ms"
                    connectionClosed(
                        connection.id, error: HTTPClientError(code: .timeout, message: message), now: now,
                        into: &actions)
                }
                continue
            }
            for (streamID, entry) in connection.streams where entry.deadline <= now {
                connections[index].streams[streamID] = nil
                actions.append(.cancelStream(connection.id, streamID: streamID))
                actions.append(.fail(entry.request, Self.timeoutError))
                if connections[index].streams.isEmpty { connections[index].idleSince = now }
            }
            if let sentAt = connection.pingSentAt, now &- sentAt >= settings.pingTimeout {
                statistics.deadConnections += 1
                let dead = connections.remove(at: index)
                actions.append(.close(dead.id))
                let message = "no PING acknowledgement within \(settings.pingTimeout / 1_000_000) ms: connection dead"
                fail(dead, HTTPClientError(code: .connectionReset, message: message), into: &actions)
                continue
            }
            if connection.supportsPing, connection.pingSentAt == nil {
                let interval =
                    connections[index].streams.isEmpty ? settings.idlePingInterval : settings.busyPingInterval
                if now &- connection.lastReceived >= interval {
                    connections[index].pingSentAt = now
                    actions.append(.ping(connection.id))
                }
            }
            closeIfDrained(index, into: &actions)
        }
        closeIdleConnections(now: now, into: &actions)
        dispatch(now: now, into: &actions)
    }

    /// The earliest time a connection timer (connect timeout, PING, idle close) falls due, if any. Request
    /// deadlines are not included: while ``isIdle`` is false, tick at a steady pace instead.
    func nextTimer() -> UInt64? {
        var earliest: UInt64?
        func consider(_ time: UInt64) { earliest = min(earliest ?? .max, time) }
        let ready = connections.count { $0.state == .ready }
        for connection in connections {
            switch connection.state {
            case .connecting:
                consider(connection.openedAt &+ settings.connectTimeout)
            case .ready, .draining:
                if let sentAt = connection.pingSentAt {
                    consider(sentAt &+ settings.pingTimeout)
                } else if connection.supportsPing {
                    let interval = connection.streams.isEmpty ? settings.idlePingInterval : settings.busyPingInterval
                    consider(connection.lastReceived &+ interval)
                }
                if connection.state == .ready, connection.streams.isEmpty, ready > settings.minConnections {
                    consider(connection.idleSince &+ settings.maxIdleTime)
                }
            }
        }
        return earliest
    }

    /// Fails everything with `error` and closes every connection.
    mutating func shutdown(with error: HTTPClientError, into actions: inout [PoolAction]) {
        for entry in waiting.removeAllElements() { actions.append(.fail(entry.request, error)) }
        for connection in connections {
            actions.append(.close(connection.id))
            for streamID in connection.streams.keys.sorted() {
                actions.append(.fail(connection.streams[streamID]!.request, error))
            }
        }
        connections.removeAll()
    }

    // MARK: Placement

    /// Hands waiting requests to connections with free streams, then opens a connection if some still wait.
    private mutating func dispatch(now: UInt64, into actions: inout [PoolAction]) {
        let cap = settings.maxStreamsPerConnection
        while let entry = waiting.first {
            var best = -1
            var bestFree = 0
            for index in connections.indices {
                let free = connections[index].freeStreams(cap: cap)
                if free > bestFree {
                    best = index
                    bestFree = free
                }
            }
            guard best >= 0 else { break }
            _ = waiting.removeFirst()
            let streamID = Int32(connections[best].nextStreamID)
            connections[best].nextStreamID += 2
            connections[best].streams[streamID] = entry
            actions.append(.submit(entry.request, on: connections[best].id, streamID: streamID))
            if connections[best].nextStreamID > PoolConnection.maxStreamID {
                connections[best].state = .draining  // stream ids used up: a new connection takes over
            }
        }
        let open = connections.count { $0.state != .draining }
        let opening = connections.count { $0.state == .connecting }
        var wanted = open
        let backingOff =
            lastFailedAttempt.map { now &- $0 < settings.reconnectDelay } == true
            && connections.contains { $0.state == .ready }
        if !waiting.isEmpty && opening == 0 && !backingOff { wanted = open + 1 }
        if !waiting.isEmpty || !isIdle { wanted = max(wanted, settings.minConnections) }
        wanted = min(wanted, settings.maxConnections)
        for _ in open..<max(open, wanted) {
            let id = ConnectionID(rawValue: nextConnectionNumber)
            nextConnectionNumber += 1
            connections.append(PoolConnection(id: id, now: now))
            statistics.connectionsOpened += 1
            actions.append(.connect(id))
        }
    }

    /// After streams left connection `index`: note when it went idle, and close it if it is draining and empty.
    private mutating func settle(_ index: Int, now: UInt64, into actions: inout [PoolAction]) {
        guard connections[index].streams.isEmpty else { return }
        connections[index].idleSince = now
        closeIfDrained(index, into: &actions)
    }

    /// Closes connection `index` if it is draining and has no stream left.
    private mutating func closeIfDrained(_ index: Int, into actions: inout [PoolAction]) {
        guard connections[index].state == .draining, connections[index].streams.isEmpty else { return }
        actions.append(.close(connections[index].id))
        connections.remove(at: index)
    }

    /// Closes ready connections idle for `maxIdleTime`, while more than `minConnections` are ready.
    private mutating func closeIdleConnections(now: UInt64, into actions: inout [PoolAction]) {
        var ready = connections.count { $0.state == .ready }
        var index = connections.count - 1
        while index >= 0 && ready > settings.minConnections {
            let connection = connections[index]
            if connection.state == .ready, connection.streams.isEmpty,
                now &- connection.idleSince >= settings.maxIdleTime
            {
                actions.append(.close(connection.id))
                connections.remove(at: index)
                ready -= 1
            }
            index -= 1
        }
    }

    /// Puts a refused request back at the front of the queue, or fails it once it was refused too often.
    private mutating func resend(
        _ entry: PoolConnection.Entry, afterGoAway: Bool, code: HTTP2ErrorCode, into actions: inout [PoolAction]
    ) {
        guard entry.resends < settings.maxResends else {
            let message = "the server refused the request unprocessed \(entry.resends + 1) times"
            actions.append(
                .fail(entry.request, HTTPClientError(code: .connectionReset, message: message, http2ErrorCode: code)))
            return
        }
        if afterGoAway { statistics.goAwayResends += 1 } else { statistics.refusedStreamResends += 1 }
        var again = entry
        again.resends += 1
        waiting.prepend(again)
    }

    /// Fails the streams of a connection that is gone; streams above its GOAWAY's last stream id go again.
    private mutating func fail(_ connection: PoolConnection, _ error: HTTPClientError, into actions: inout [PoolAction])
    {
        let reported = HTTPClientError(
            code: error.code, message: error.message,
            http2ErrorCode: error.http2ErrorCode ?? connection.goAway?.errorCode)
        for streamID in connection.streams.keys.sorted(by: >) {
            let entry = connection.streams[streamID]!
            if let goAway = connection.goAway, streamID > goAway.lastStreamID {
                resend(entry, afterGoAway: true, code: goAway.errorCode, into: &actions)
            } else {
                actions.append(.fail(entry.request, reported))
            }
        }
    }

    private func index(of id: ConnectionID) -> Int? {
        connections.firstIndex { $0.id == id }
    }

    private static let timeoutError = HTTPClientError(code: .timeout, message: "request timed out")
}
