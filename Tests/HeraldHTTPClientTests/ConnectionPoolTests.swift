import Testing

@testable import HeraldHTTPClient

/// The pool's decisions without sockets: placement, stream budgets, GOAWAY / REFUSED_STREAM / RST handling,
/// PINGs and timers, driven by a clock the test moves.
@Suite("Connection pool state machine")
struct ConnectionPoolTests {
    /// A pool, the actions of the last event, and a clock in milliseconds.
    struct Harness {
        var pool: ConnectionPool
        var actions: [PoolAction] = []
        var now: UInt64 = 1_000_000_000

        init(_ configure: (inout ConnectionPool.Settings) -> Void = { _ in }) {
            var settings = ConnectionPool.Settings()
            configure(&settings)
            pool = ConnectionPool(settings: settings)
        }

        mutating func advance(milliseconds: UInt64) { now += milliseconds * 1_000_000 }

        /// Runs `event` and returns the actions it produced.
        @discardableResult
        mutating func on(_ event: (inout ConnectionPool, UInt64, inout [PoolAction]) -> Void) -> [PoolAction] {
            actions.removeAll()
            event(&pool, now, &actions)
            return actions
        }

        @discardableResult
        mutating func enqueue(_ id: Int, deadline: UInt64 = .max) -> [PoolAction] {
            on { pool, now, actions in pool.enqueue(request(id), deadline: deadline, now: now, into: &actions) }
        }

        @discardableResult
        mutating func ready(_ connection: Int, streams: Int) -> [PoolAction] {
            on { pool, now, actions in
                pool.connectionReady(
                    ConnectionID(rawValue: connection), maxConcurrentStreams: streams, supportsPing: true, now: now,
                    into: &actions)
            }
        }

        /// Closes a stream; returns the request answered, if any.
        mutating func close(
            _ connection: Int, stream: Int32, complete: Bool = true, code: HTTP2ErrorCode = .noError
        ) -> RequestID? {
            var answered: RequestID?
            on { pool, now, actions in
                answered = pool.streamClosed(
                    ConnectionID(rawValue: connection), streamID: stream, responseComplete: complete, errorCode: code,
                    now: now, into: &actions)
            }
            return answered
        }

        @discardableResult
        mutating func tick() -> [PoolAction] {
            on { pool, now, actions in pool.tick(now: now, into: &actions) }
        }
    }

    static func request(_ id: Int) -> RequestID { RequestID(rawValue: id) }
    static func connection(_ id: Int) -> ConnectionID { ConnectionID(rawValue: id) }

    static func submit(_ requestID: Int, on connectionID: Int, stream: Int32) -> PoolAction {
        .submit(request(requestID), on: connection(connectionID), streamID: stream)
    }

    static func failures(_ actions: [PoolAction]) -> [(Int, HTTPClientError)] {
        actions.compactMap { action in
            if case .fail(let request, let error) = action { return (request.rawValue, error) }
            return nil
        }
    }

    // MARK: Placement and budgets

    @Test("the first request opens a connection; once ready, requests become streams 1, 3, 5")
    func firstRequestOpensAConnection() {
        var harness = Harness()
        #expect(harness.enqueue(1) == [.connect(Self.connection(1))])
        #expect(harness.enqueue(2).isEmpty, "one connection opening is enough to wait for")
        #expect(harness.ready(1, streams: 100) == [Self.submit(1, on: 1, stream: 1), Self.submit(2, on: 1, stream: 3)])
        #expect(harness.enqueue(3) == [Self.submit(3, on: 1, stream: 5)])
        #expect(harness.pool.inFlight == 3)
        #expect(harness.close(1, stream: 3) == Self.request(2))
        #expect(harness.pool.inFlight == 2)
    }

    @Test("the server's stream limit is followed: a request waits only for a free stream, or a new connection")
    func streamLimitIsFollowed() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1)
        harness.ready(1, streams: 2)
        harness.enqueue(2)
        #expect(harness.enqueue(3).isEmpty, "both streams in use and no other connection allowed")
        #expect(harness.close(1, stream: 1) == Self.request(1))
        #expect(harness.actions == [Self.submit(3, on: 1, stream: 5)], "the freed stream goes to the waiting request")

        var two = Harness { $0.maxConnections = 2 }
        two.enqueue(1)
        two.ready(1, streams: 1)
        #expect(two.enqueue(2) == [.connect(Self.connection(2))], "all streams busy: a second connection opens")
        #expect(two.enqueue(3).isEmpty)
        #expect(two.ready(2, streams: 1) == [Self.submit(2, on: 2, stream: 1)])
    }

    @Test("a lowered connection limit drains the least busy connections; 0 opens none; a raised one opens again")
    func connectionLimitChangesWhileRunning() {
        var harness = Harness { $0.maxConnections = 2 }
        harness.enqueue(1)
        harness.ready(1, streams: 1)
        harness.enqueue(2)
        harness.ready(2, streams: 1)
        harness.enqueue(3)  // waits: both streams busy
        #expect(harness.close(2, stream: 1) == Self.request(2))
        #expect(harness.actions == [Self.submit(3, on: 2, stream: 3)])
        _ = harness.close(1, stream: 1)
        #expect(
            harness.on { pool, now, actions in pool.limitConnections(to: 1, now: now, into: &actions) }
                == [.close(Self.connection(1))], "the idle one closes at once; the busy one stays")
        #expect(harness.on { pool, now, actions in pool.limitConnections(to: 0, now: now, into: &actions) }.isEmpty)
        #expect(harness.enqueue(4).isEmpty, "the last connection drains: no stream, no new connection")
        #expect(harness.close(2, stream: 3) == Self.request(3))
        #expect(harness.actions == [.close(Self.connection(2))], "closed with its last answer")
        #expect(
            harness.on { pool, now, actions in pool.limitConnections(to: 1, now: now, into: &actions) }
                == [.connect(Self.connection(3))], "the waiting request gets a connection again")
    }

    @Test("a raised SETTINGS_MAX_CONCURRENT_STREAMS releases waiting requests; a lowered one holds new streams back")
    func settingsChangesAreFollowed() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1)
        harness.ready(1, streams: 1)  // APNs: one stream until a token has been accepted
        for id in 2...5 { harness.enqueue(id) }
        #expect(harness.pool.inFlight == 1)
        let raised = harness.on { pool, now, actions in
            pool.settingsChanged(Self.connection(1), maxConcurrentStreams: 1000, now: now, into: &actions)
        }
        #expect(raised.count == 4)
        #expect(harness.pool.inFlight == 5)

        harness.on { pool, now, actions in
            pool.settingsChanged(Self.connection(1), maxConcurrentStreams: 2, now: now, into: &actions)
        }
        #expect(harness.enqueue(6).isEmpty)
        for stream: Int32 in [1, 3, 5] { _ = harness.close(1, stream: stream) }
        #expect(harness.pool.inFlight == 2, "still at the lowered limit of 2")
        _ = harness.close(1, stream: 7)
        #expect(harness.pool.inFlight == 2)
        #expect(harness.pool.waiting.isEmpty)
        #expect(harness.pool.statistics.connectionsOpened == 1)
    }

    @Test("a request goes to the ready connection with the most free streams")
    func leastLoadedConnectionWins() {
        var harness = Harness { $0.minConnections = 2 }
        #expect(harness.enqueue(1) == [.connect(Self.connection(1)), .connect(Self.connection(2))])
        harness.ready(1, streams: 10)
        #expect(harness.actions == [Self.submit(1, on: 1, stream: 1)])
        harness.ready(2, streams: 10)
        #expect(harness.enqueue(2) == [Self.submit(2, on: 2, stream: 1)])
        #expect(harness.enqueue(3) == [Self.submit(3, on: 1, stream: 3)])
    }

    @Test("a slow stream holds only itself: later requests keep flowing on the other streams")
    func slowStreamsDoNotBlock() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1)
        harness.ready(1, streams: 3)
        harness.enqueue(2)  // stream 3 stays slow
        for id in 3...50 {
            let actions = harness.enqueue(id)
            #expect(actions.count == 1)
            guard case .submit(_, _, let stream) = actions.first else { break }
            #expect(harness.close(1, stream: stream) == Self.request(id))
        }
        #expect(harness.pool.inFlight == 2)
    }

    // MARK: Stream endings

    @Test("a complete response is a success however the stream ends, RST_STREAM(NO_ERROR) included")
    func completeResponseThenResetIsSuccess() {
        var harness = Harness()
        harness.enqueue(1)
        harness.ready(1, streams: 10)
        #expect(harness.close(1, stream: 1, complete: true, code: .noError) == Self.request(1))
        #expect(harness.actions.isEmpty, "no failure, no resend")
        harness.enqueue(2)
        #expect(harness.close(1, stream: 3, complete: true, code: .cancel) == Self.request(2))
        #expect(harness.pool.statistics.refusedStreamResends == 0)
    }

    @Test("a stream reset before its response is complete fails with connectionReset and the code")
    func resetFails() {
        var harness = Harness()
        harness.enqueue(1)
        harness.ready(1, streams: 10)
        #expect(harness.close(1, stream: 1, complete: false, code: .internalError) == nil)
        let failures = Self.failures(harness.actions)
        #expect(failures.map(\.0) == [1])
        #expect(failures.first?.1.code == .connectionReset)
        #expect(failures.first?.1.http2ErrorCode == .internalError)
        #expect(harness.pool.statistics.streamsReset == 1)

        harness.enqueue(2)
        _ = harness.close(1, stream: 3, complete: false, code: .noError)
        #expect(Self.failures(harness.actions).first?.1.http2ErrorCode == .noError, "NO_ERROR without an answer fails")
    }

    @Test("REFUSED_STREAM is sent again at once, ahead of the queue, and counted; a request refused too often fails")
    func refusedStreamIsResent() {
        var harness = Harness {
            $0.maxConnections = 1
            $0.maxResends = 2
        }
        harness.enqueue(1)
        harness.ready(1, streams: 1)
        harness.enqueue(2)
        #expect(harness.close(1, stream: 1, complete: false, code: .refusedStream) == nil)
        #expect(harness.actions == [Self.submit(1, on: 1, stream: 3)], "request 1 again, before request 2")
        #expect(harness.pool.statistics.refusedStreamResends == 1)
        _ = harness.close(1, stream: 3, complete: false, code: .refusedStream)
        #expect(harness.actions == [Self.submit(1, on: 1, stream: 5)])
        _ = harness.close(1, stream: 5, complete: false, code: .refusedStream)
        let failures = Self.failures(harness.actions)
        #expect(failures.map(\.0) == [1])
        #expect(failures.first?.1.code == .connectionReset)
        #expect(failures.first?.1.http2ErrorCode == .refusedStream)
        #expect(harness.actions.contains(Self.submit(2, on: 1, stream: 7)))
    }

    @Test("GOAWAY: streams above the last id go again, in order, on a new connection; the rest finish; then it closes")
    func goAwayDrains() {
        var harness = Harness()
        harness.enqueue(1)
        harness.ready(1, streams: 100)
        for id in 2...4 { harness.enqueue(id) }  // streams 1, 3, 5, 7
        let actions = harness.on { pool, now, actions in
            pool.goAwayReceived(
                Self.connection(1), lastStreamID: 3, errorCode: .enhanceYourCalm, debugData: #"{"reason":"x"}"#,
                now: now,
                into: &actions)
        }
        #expect(actions == [.connect(Self.connection(2))])
        #expect(harness.pool.waiting.count == 2)
        #expect(harness.enqueue(5).isEmpty, "a draining connection takes no new stream")
        #expect(
            harness.ready(2, streams: 100) == [
                Self.submit(3, on: 2, stream: 1), Self.submit(4, on: 2, stream: 3), Self.submit(5, on: 2, stream: 5),
            ])
        #expect(harness.close(1, stream: 5, complete: false, code: .refusedStream) == nil)
        #expect(harness.actions.isEmpty, "nghttp2's own REFUSED_STREAM for a stream already moved is ignored")
        #expect(harness.close(1, stream: 1) == Self.request(1))
        #expect(harness.actions.isEmpty)
        #expect(harness.close(1, stream: 3) == Self.request(2))
        #expect(harness.actions == [.close(Self.connection(1))], "drained: closed")
        let statistics = harness.pool.statistics
        #expect(statistics.goAwayResends == 2)
        #expect(statistics.goAwaysReceived == 1)
        #expect(statistics.goAwayErrors == 1)
        #expect(statistics.lastGoAway?.errorCode == .enhanceYourCalm)
        #expect(statistics.lastGoAway?.lastStreamID == 3)
        #expect(statistics.lastGoAway?.debugData == #"{"reason":"x"}"#)
    }

    @Test("a connection lost after GOAWAY fails its unfinished streams with the GOAWAY's code")
    func lostAfterGoAwayCarriesTheCode() {
        var harness = Harness()
        harness.enqueue(1)
        harness.ready(1, streams: 100)
        harness.on { pool, now, actions in
            pool.goAwayReceived(
                Self.connection(1), lastStreamID: 1, errorCode: .enhanceYourCalm, debugData: "", now: now,
                into: &actions)
        }
        harness.on { pool, now, actions in
            pool.connectionClosed(
                Self.connection(1), error: HTTPClientError(code: .connectionReset, message: "closed"), now: now,
                into: &actions)
        }
        let failures = Self.failures(harness.actions)
        #expect(failures.map(\.0) == [1])
        #expect(failures.first?.1.http2ErrorCode == .enhanceYourCalm)
    }
}
