import Testing
@testable import HeraldHTTPClient

/// Connections, deadlines, cancellation and shutdown.
extension ConnectionPoolTests {
    // MARK: Connections

    @Test("a failed connection attempt fails the waiting requests, unless another connection can take them")
    func connectFailureFailsWaiters() {
        var harness = Harness()
        harness.enqueue(1)
        harness.enqueue(2)
        let refused = HTTPClientError(code: .connectionFailed, message: "connect: Connection refused")
        harness.on { pool, now, actions in
            pool.connectionClosed(Self.connection(1), error: refused, now: now, into: &actions)
        }
        #expect(Self.failures(harness.actions).map(\.0) == [1, 2])
        #expect(harness.pool.statistics.connectionFailures == 1)

        var busy = Harness()
        busy.enqueue(1)
        busy.ready(1, streams: 1)
        #expect(busy.enqueue(2) == [.connect(Self.connection(2))])
        busy.on { pool, now, actions in
            pool.connectionClosed(Self.connection(2), error: refused, now: now, into: &actions)
        }
        #expect(busy.actions.isEmpty, "request 2 waits for connection 1's stream, with no new attempt at once")
        _ = busy.close(1, stream: 1)
        #expect(busy.actions == [Self.submit(2, on: 1, stream: 3)])
    }

    @Test("a connection that is not ready within the connect timeout is given up")
    func connectTimeout() {
        var harness = Harness { $0.connectTimeout = 2_000_000_000 }
        harness.enqueue(1)
        harness.advance(milliseconds: 1999)
        #expect(harness.tick().isEmpty)
        harness.advance(milliseconds: 1)
        let actions = harness.tick()
        #expect(actions.first == .close(Self.connection(1)))
        #expect(Self.failures(actions).map { $0.1.code } == [.timeout])
    }

    @Test("an idle connection is PINGed; an unacknowledged PING marks the connection dead and fails its streams")
    func pingsDetectDeadConnections() {
        var harness = Harness {
            $0.idlePingInterval = 60_000_000_000
            $0.busyPingInterval = 5_000_000_000
            $0.pingTimeout = 10_000_000_000
        }
        harness.enqueue(1)
        harness.ready(1, streams: 10)
        _ = harness.close(1, stream: 1)
        harness.advance(milliseconds: 59_999)
        #expect(harness.tick().isEmpty)
        harness.advance(milliseconds: 1)
        #expect(harness.tick() == [.ping(Self.connection(1))])
        harness.advance(milliseconds: 50)
        harness.on { pool, now, _ in pool.pingAcknowledged(Self.connection(1), now: now) }
        harness.advance(milliseconds: 30_000)
        #expect(harness.tick().isEmpty, "acknowledged: next PING after another idle interval")

        // Busy: a request in flight and nothing heard for 5 s.
        harness.enqueue(2)
        harness.advance(milliseconds: 30_000)
        #expect(harness.tick() == [.ping(Self.connection(1))])
        #expect(harness.pool.nextTimer() == harness.now + 10_000_000_000)
        harness.advance(milliseconds: 9_999)
        #expect(harness.tick().isEmpty)
        harness.advance(milliseconds: 1)
        let dead = harness.tick()
        #expect(dead.first == .close(Self.connection(1)))
        let failures = Self.failures(dead)
        #expect(failures.map(\.0) == [2])
        #expect(failures.first?.1.code == .connectionReset)
        #expect(harness.pool.statistics.deadConnections == 1)
        #expect(harness.pool.connections.isEmpty)
    }

    @Test("traffic from the server counts as life: no PING while frames keep arriving")
    func receivingPostponesPings() {
        var harness = Harness { $0.busyPingInterval = 1_000_000_000 }
        harness.enqueue(1)
        harness.ready(1, streams: 10)
        for _ in 0..<10 {
            harness.advance(milliseconds: 900)
            harness.pool.received(Self.connection(1), now: harness.now)
            #expect(harness.tick().isEmpty)
        }
    }

    @Test("connections above the minimum close after the idle time; the minimum stays")
    func idleConnectionsClose() {
        var harness = Harness {
            $0.minConnections = 1
            $0.maxIdleTime = 300_000_000_000
            $0.idlePingInterval = 1_000_000_000_000
        }
        harness.enqueue(1)
        harness.ready(1, streams: 1)
        harness.enqueue(2)
        harness.ready(2, streams: 1)
        _ = harness.close(1, stream: 1)
        _ = harness.close(2, stream: 1)
        harness.advance(milliseconds: 300_000)
        #expect(harness.tick() == [.close(Self.connection(2))])
        harness.advance(milliseconds: 300_000)
        #expect(harness.tick().isEmpty)
        #expect(harness.pool.connections.map(\.id) == [Self.connection(1)])
    }

    // MARK: Deadlines, cancellation, shutdown

    @Test("deadlines: a queued request is dropped, an in-flight one's stream is reset")
    func deadlines() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1, deadline: harness.now + 1_000_000_000)
        harness.ready(1, streams: 1)
        harness.enqueue(2, deadline: harness.now + 500_000_000)
        harness.advance(milliseconds: 500)
        #expect(Self.failures(harness.tick()).map { [$0.0: $0.1.code] } == [[2: .timeout]])
        harness.advance(milliseconds: 500)
        let actions = harness.tick()
        #expect(actions.contains(.cancelStream(Self.connection(1), streamID: 1)))
        #expect(Self.failures(actions).map { [$0.0: $0.1.code] } == [[1: .timeout]])
        #expect(harness.close(1, stream: 1, complete: false, code: .cancel) == nil, "its close is no news")
        #expect(harness.actions.isEmpty)
    }

    @Test("cancel removes a queued request or resets its stream; shutdown fails everything and closes")
    func cancelAndShutdown() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1)
        harness.ready(1, streams: 1)
        harness.enqueue(2)
        let cancelled = HTTPClientError(code: .cancelled, message: "cancelled")
        harness.on { pool, now, actions in pool.cancel(Self.request(2), with: cancelled, now: now, into: &actions) }
        #expect(harness.actions == [.fail(Self.request(2), cancelled)])
        harness.on { pool, now, actions in pool.cancel(Self.request(1), with: cancelled, now: now, into: &actions) }
        #expect(harness.actions == [.cancelStream(Self.connection(1), streamID: 1), .fail(Self.request(1), cancelled)])

        harness.enqueue(3)
        harness.enqueue(4)
        harness.on { pool, _, actions in pool.shutdown(with: cancelled, into: &actions) }
        #expect(Set(Self.failures(harness.actions).map(\.0)) == [3, 4])
        #expect(harness.actions.contains(.close(Self.connection(1))))
        #expect(harness.pool.connections.isEmpty)
    }

    @Test("an HTTP/1.1 connection drained after Connection: close closes once its request is answered")
    func drainClosesAfterTheLastStream() {
        var harness = Harness { $0.maxConnections = 1 }
        harness.enqueue(1)
        harness.on { pool, now, actions in
            pool.connectionReady(
                Self.connection(1), maxConcurrentStreams: 1, supportsPing: false, now: now, into: &actions)
        }
        harness.enqueue(2)
        harness.on { pool, now, actions in pool.drain(Self.connection(1), now: now, into: &actions) }
        #expect(harness.actions == [.connect(Self.connection(2))], "a draining connection leaves room for another")
        #expect(harness.close(1, stream: 1) == Self.request(1))
        #expect(harness.actions == [.close(Self.connection(1))])
        harness.on { pool, now, actions in
            pool.connectionReady(
                Self.connection(2), maxConcurrentStreams: 1, supportsPing: false, now: now, into: &actions)
        }
        #expect(harness.actions == [Self.submit(2, on: 2, stream: 1)])
        harness.advance(milliseconds: 3_600_000)
        #expect(!harness.tick().contains(.ping(Self.connection(2))), "HTTP/1.1 connections are not PINGed")
    }
}
