import Foundation
import HeraldCrypto
import HeraldHTTPClient
import HeraldModel
import HeraldTesting
import Synchronization
import Testing

/// HTTP2Client against the APNs stand-in (`Tests/StandIns/standin.py`, Python h2 over TLS with a throwaway CA),
/// programmed to misbehave the ways a real gateway does: GOAWAY below open streams, REFUSED_STREAM, a complete
/// answer then RST_STREAM(NO_ERROR), a stream limit that starts low and rises, slow answers, a connection gone
/// silent.
@Suite("HTTP2Client against the APNs stand-in", .serialized)
struct HTTP2ClientStandInTests {
    /// A started stand-in with a registered key, and requests it accepts (status 200).
    final class APNs: Sendable {
        let standIn: StandIn
        let bearer: String
        static let topic = "com.example.herald"

        init() throws {
            standIn = try StandIn()
            let key = P256PrivateKey.generate()
            try standIn.registerAPNsKey(keyID: "KEY1234567", teamID: "TEAM123456", topic: Self.topic, key: key)
            let issuedAt = Int(Date().timeIntervalSince1970)
            bearer =
                "bearer "
                + (try JWT.signES256(
                    headerJSON: #"{"alg":"ES256","kid":"KEY1234567"}"#,
                    claimsJSON: #"{"iss":"TEAM123456","iat":\#(issuedAt)}"#, key: key))
        }

        func client(_ configure: (inout HTTP2Client.Configuration) -> Void = { _ in }) throws -> HTTP2Client {
            var configuration = HTTP2Client.Configuration(extraCAFile: standIn.caFile)
            configure(&configuration)
            return try HTTP2Client(configuration: configuration)
        }

        /// A valid push to `token` (64 hex digits by default) with its own apns-id.
        func request(
            token: String = String(repeating: "ab", count: 32), apnsID: String = UUID().uuidString,
            body: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8), timeout: Duration = .seconds(30)
        ) -> HTTPClientRequest {
            HTTPClientRequest(
                method: "POST", url: standIn.apnsURL + "/3/device/" + token,
                headers: [
                    ("authorization", bearer), ("apns-topic", Self.topic), ("apns-push-type", "alert"),
                    ("apns-priority", "10"), ("apns-id", apnsID),
                ],
                body: body, timeout: timeout)
        }

        func stats() throws -> JSON { try standIn.stats()["apns"] ?? .null }

        func stop() { standIn.stop() }
    }

    /// Sends every request at once (completion handlers) and waits for all; results in request order, each with
    /// the time it completed.
    static func sendAll(_ client: HTTP2Client, _ requests: [HTTPClientRequest]) async
        -> [(result: Result<HTTPClientResponse, HTTPClientError>, at: ContinuousClock.Instant)]
    {
        let results = Mutex<[Int: (Result<HTTPClientResponse, HTTPClientError>, ContinuousClock.Instant)]>([:])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for (index, request) in requests.enumerated() {
                client.execute(request) { result in
                    let count = results.withLock { results in
                        results[index] = (result, ContinuousClock.now)
                        return results.count
                    }
                    if count == requests.count { done.resume() }
                }
            }
        }
        return results.withLock { results in (0..<requests.count).map { (results[$0]!.0, results[$0]!.1) } }
    }

    static func statuses(
        _ results: [(result: Result<HTTPClientResponse, HTTPClientError>, at: ContinuousClock.Instant)]
    )
        -> [Int]
    {
        results.map { (try? $0.result.get().status) ?? -1 }
    }

    // MARK: Tests

    @Test("a complete 200 followed by RST_STREAM(NO_ERROR) is a success, not a failure nor a retry")
    func completeResponseThenResetIsSuccess() async throws {
        let apns = try APNs()
        defer { apns.stop() }
        let client = try apns.client()
        defer { client.shutdown() }
        try apns.standIn.apnsRule(["early_answer_first_n": 2])

        // A body of 1 MiB is still being uploaded when the answer and the reset arrive; a small one is not.
        let large = try await client.execute(apns.request(body: Array(repeating: 0x20, count: 1 << 20)))
        #expect(large.status == 200)
        let small = try await client.execute(apns.request())
        #expect(small.status == 200)
        let after = try await client.execute(apns.request())
        #expect(after.status == 200, "the connection is fine afterwards")

        let stats = try apns.stats()
        #expect(stats["early_answers"]?.int64Value == 2)
        #expect(stats["requests"]?.int64Value == 3, "nothing was sent twice")
        #expect(client.statistics.streamsReset == 0)
        #expect(client.statistics.refusedStreamResends == 0)
        #expect(client.connectionsOpened == 1)
    }

    @Test("GOAWAY: exactly the streams above its last stream id are sent again on a new connection; each push once")
    func goAwayResendsOnlyUnprocessedStreams() async throws {
        let apns = try APNs()
        defer { apns.stop() }
        let client = try apns.client()
        defer { client.shutdown() }
        // Every connection is sent away after its 50th push, with streams still open above and below that one
        // (slow tokens are answered 300 ms late, after the GOAWAY).
        try apns.standIn.apnsRule(["goaway_after": 50, "drain": true, "error_code": 11, "reason": "TooManyRequests"])
        try apns.standIn.apnsRule(["token_prefix": "c0ffee", "delay_ms": 300])

        let requests = (0..<400).map { index in
            apns.request(
                token: index % 20 == 0
                    ? "c0ffee" + String(repeating: "ab", count: 29) : String(repeating: "ab", count: 32))
        }
        let results = await Self.sendAll(client, requests)
        #expect(
            Self.statuses(results).allSatisfy { $0 == 200 },
            "\(results.compactMap { try? $0.result.get() }.count) of 400")

        let stats = try apns.stats()
        #expect(stats["accepted"]?.int64Value == 400)
        #expect(stats["duplicate_apns_ids"]?.int64Value == 0, "no push processed twice")
        let records = try apns.standIn.apnsRequests()
        let ids = records.compactMap { $0["request_apns_id"]?.stringValue?.lowercased() }
        #expect(Set(ids) == Set(requests.map { $0.headers[4].value.lowercased() }))
        #expect(ids.count == 400)

        let statistics = client.statistics
        #expect(statistics.goAwaysReceived >= 7)
        #expect(statistics.goAwayResends > 0, "streams above the last id were sent again")
        #expect(statistics.goAwayErrors == statistics.goAwaysReceived)
        #expect(statistics.lastGoAway?.errorCode == .enhanceYourCalm)
        #expect(statistics.lastGoAway?.debugData.contains("TooManyRequests") == true)
        #expect(statistics.streamsReset == 0)
    }

    @Test("REFUSED_STREAM is sent again at once, unseen by the caller, and counted")
    func refusedStreamIsRetried() async throws {
        let apns = try APNs()
        defer { apns.stop() }
        let client = try apns.client()
        defer { client.shutdown() }
        try apns.standIn.apnsRule(["reset_first_n": 5, "error_code": 7])

        let results = await Self.sendAll(client, (0..<20).map { _ in apns.request() })
        #expect(Self.statuses(results).allSatisfy { $0 == 200 })
        #expect(client.statistics.refusedStreamResends == 5)
        let stats = try apns.stats()
        #expect(stats["resets"]?.int64Value == 5)
        #expect(stats["accepted"]?.int64Value == 20)
    }

    @Test("slow answers hold only their own streams: 1,000 fast pushes finish long before 10 slow ones")
    func slowStreamsDoNotHoldUpFastOnes() async throws {
        let apns = try APNs()
        defer { apns.stop() }
        let client = try apns.client()
        defer { client.shutdown() }
        try apns.standIn.apnsRule(["token_prefix": "c0ffee", "delay_ms": 2000])
        _ = try await client.execute(apns.request())  // the connection is up

        let slow = (0..<10).map { _ in apns.request(token: "c0ffee" + String(repeating: "ab", count: 29)) }
        let fast = (0..<1000).map { _ in apns.request() }
        let started = ContinuousClock.now
        let results = await Self.sendAll(client, slow + fast)
        #expect(Self.statuses(results).allSatisfy { $0 == 200 })
        let slowDone = results[0..<10].map(\.at)
        let fastDone = results[10...].map(\.at)
        let lastFast = fastDone.max()!
        let firstSlow = slowDone.min()!
        #expect(
            lastFast < firstSlow, "fast ones done after \(lastFast - started), slow ones from \(firstSlow - started)")
        #expect(firstSlow - started >= .milliseconds(1900))
    }

    @Test("the server's stream limit is followed while low and used when raised")
    func streamLimitIsFollowedAndRaised() async throws {
        let apns = try APNs()
        defer { apns.stop() }
        // 2 streams for the connection's life: 50 pushes on one connection never have more than 2 open.
        try apns.standIn.configureAPNs(["initial_max_concurrent_streams": 2, "raise_streams_after": 100_000])
        let single = try apns.client { $0.maxConnectionsPerHost = 1 }
        let low = await Self.sendAll(single, (0..<50).map { _ in apns.request() })
        single.shutdown()
        #expect(
            Self.statuses(low).allSatisfy { $0 == 200 }, "a stream beyond the limit would have killed the connection")
        var stats = try apns.stats()
        #expect(stats["max_concurrent_streams_seen"]?.int64Value == 2)
        #expect(stats["connections"]?.int64Value == 1)

        // The budget is the pool's own, not just nghttp2's queue: with both streams held by slow answers, fast
        // pushes go to new connections instead of waiting behind them.
        try apns.standIn.call("POST", "/reset")
        try apns.standIn.configureAPNs(["initial_max_concurrent_streams": 2, "raise_streams_after": 100_000])
        try apns.standIn.apnsRule(["token_prefix": "c0ffee", "delay_ms": 1500])
        let pooled = try apns.client { $0.maxConnectionsPerHost = 4 }
        let slowAndFast =
            (0..<2).map { _ in apns.request(token: "c0ffee" + String(repeating: "ab", count: 29)) }
            + (0..<20).map { _ in apns.request() }
        let mixed = await Self.sendAll(pooled, slowAndFast)
        pooled.shutdown()
        #expect(Self.statuses(mixed).allSatisfy { $0 == 200 })
        #expect(mixed[2...].map(\.at).max()! < mixed[0..<2].map(\.at).min()!, "fast pushes did not queue behind slow")
        #expect(pooled.connectionsOpened >= 2)
        #expect(try apns.stats()["max_concurrent_streams_seen"]?.int64Value == 2)

        // 2 until 5 pushes are answered, then 1000: the rest go out together.
        try apns.standIn.call("POST", "/reset")
        try apns.standIn.configureAPNs(["initial_max_concurrent_streams": 2, "raise_streams_after": 5])
        let raised = try apns.client { $0.maxConnectionsPerHost = 1 }
        defer { raised.shutdown() }
        let many = await Self.sendAll(raised, (0..<300).map { _ in apns.request() })
        #expect(Self.statuses(many).allSatisfy { $0 == 200 })
        stats = try apns.stats()
        #expect((stats["max_concurrent_streams_seen"]?.int64Value ?? 0) > 50)
        #expect(stats["connections"]?.int64Value == 1)
    }

    @Test("a connection that stops answering PINGs is found dead: its requests fail to be retried, idle ones close")
    func deadConnectionIsDetected() async throws {
        let apns = try APNs()
        defer { apns.stop() }

        // Busy: the connection answers one push, then goes silent with the second in flight. (Idle PINGs are
        // slow here, so that only the busy one can find it, however long the machine takes between the two.)
        let busy = try apns.client {
            $0.busyPingInterval = .milliseconds(300)
            $0.idlePingInterval = .seconds(60)
            $0.pingTimeout = .milliseconds(500)
        }
        try apns.standIn.apnsRule(["stall_after": 1, "times": 1])
        #expect(try await busy.execute(apns.request()).status == 200)
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await busy.execute(apns.request(timeout: .seconds(20)))
        }
        #expect(error?.code == .connectionReset, "\(String(describing: error))")
        #expect(error?.message.contains("PING") == true)
        #expect(ContinuousClock.now - started < .seconds(10), "found by PING, long before the request's timeout")
        #expect(busy.statistics.deadConnections == 1)
        #expect(try await busy.execute(apns.request()).status == 200, "the retry goes on a new connection")
        #expect(busy.connectionsOpened == 2)
        busy.shutdown()

        // Idle: the connection goes silent with nothing in flight; its PING goes unanswered and it is dropped.
        let idle = try apns.client {
            $0.busyPingInterval = .seconds(60)
            $0.idlePingInterval = .milliseconds(300)
            $0.pingTimeout = .milliseconds(500)
        }
        defer { idle.shutdown() }
        try apns.standIn.apnsRule(["stall_after": 1, "times": 1])
        #expect(try await idle.execute(apns.request()).status == 200)
        #expect(await Poll.eventually { idle.statistics.deadConnections >= 1 }, "the silent connection was found dead")
        #expect(idle.statistics.deadConnections == 1)
        #expect(try await idle.execute(apns.request()).status == 200)
        #expect(idle.connectionsOpened == 2)
        #expect((try apns.stats()["pings_ignored"]?.int64Value ?? 0) >= 2)
    }
}
