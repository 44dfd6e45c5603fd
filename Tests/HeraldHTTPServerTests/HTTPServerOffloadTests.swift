import Foundation
import HeraldHTTPServer
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// Offloaded routes (`Router.add(…, offloaded: true)`): slow CPU work runs on the server's workers while its
/// connection is suspended, so the HTTP thread goes on serving the others; and a suspended connection survives its
/// client leaving and the server stopping.
@Suite("HTTP server: offloaded routes")
struct HTTPServerOffloadTests {
    typealias Box = HTTPServerTests.Box

    /// A gate a handler waits at until the test opens it, telling the test when a handler has arrived.
    final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let arrivals = DispatchSemaphore(value: 0)

        /// Called by the handler.
        func pass() {
            arrivals.signal()
            opened.wait()
            opened.signal()
        }

        /// Whether a handler arrived within `seconds`.
        func arrived(within seconds: Double = 5) -> Bool { arrivals.wait(timeout: .now() + seconds) == .success }

        /// Lets every handler through, now and later.
        func open() { opened.signal() }
    }

    /// A server with ONE HTTP thread (every connection is served by the same thread), answering `/gate` (waits at
    /// `gate`) offloaded or not, `/fast`, `/echo/{n}` offloaded and `/teapot` offloaded, throwing.
    final class Server: @unchecked Sendable {
        let server: HTTPServer
        let gate = Gate()
        var port: Int { server.port }

        init(gateOffloaded: Bool = true, configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws {
            var router = Router()
            let gate = gate
            router.get("/gate", offloaded: gateOffloaded) { _ in
                gate.pass()
                return .json(["gate": "passed"])
            }
            router.get("/fast") { _ in .json(["fast": true]) }
            router.post("/echo/{n}", offloaded: true) { request in
                .json(["n": .string(request.parameter("n") ?? ""), "length": .int(Int64(request.body.count))])
            }
            router.get("/teapot", offloaded: true) { _ in throw HTTPError(HTTPStatus(418), field: "base", "short") }
            var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
            configuration.threadCount = 1
            configuration.workerThreadCount = 2
            configure(&configuration)
            server = HTTPServer(
                configuration: configuration,
                responder: Application(router: router, middleware: [ErrorMiddleware(logger: .disabled)]),
                logger: .disabled)
            try server.start()
        }

        deinit {
            gate.open()
            server.shutdown(gracePeriod: .seconds(2))
        }

        func client(timeout: Double = 10) -> TestHTTPClient {
            let client = TestHTTPClient(port: port)
            client.timeout = timeout
            return client
        }

        /// Opens the gate `seconds` from now, from a thread of its own: a block on Dispatch's global queue can wait
        /// behind tests blocking its few threads (the pool is as wide as the cores), and a late opening turns the
        /// grace-period tests' timing into a flake.
        func openGate(after seconds: Double) {
            let gate = gate
            Thread {
                Thread.sleep(forTimeInterval: seconds)  // the handler's deliberate length: what the grace is tried on
                gate.open()
            }.start()
        }

        /// Sends `GET /gate` on its own thread; its outcome lands in the box returned, `done` signalled.
        func requestGate(done: DispatchSemaphore) -> Box<Result<TestHTTPClient.Response, any Error>> {
            let result = Box<Result<TestHTTPClient.Response, any Error>>()
            let client = client()
            Thread {
                result.set(Result { try client.request("GET", "/gate") })
                done.signal()
            }.start()
            return result
        }
    }

    @Test func aSlowOffloadedRequestDoesNotHoldUpOtherConnectionsOnItsThread() throws {
        let server = try Server()
        let done = DispatchSemaphore(value: 0)
        let slow = server.requestGate(done: done)
        #expect(server.gate.arrived())
        // The one HTTP thread is free: another connection is answered while the gate is shut.
        let started = ContinuousClock.now
        let fast = try server.client(timeout: 2).request("GET", "/fast")
        #expect(fast.status == 200)
        #expect(ContinuousClock.now - started < .seconds(2))
        server.gate.open()
        #expect(done.wait(timeout: .now() + 5) == .success)
        let answer = try #require(try slow.get()?.get())
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.value?["gate"] == "passed")
        #expect(answer.header("x-request-id") != nil)
    }

    @Test func theSameRouteRunOnTheHTTPThreadHoldsUpTheOthers() throws {
        // The control for the test above: without offloading, the one HTTP thread is stuck in the handler.
        let server = try Server(gateOffloaded: false)
        let done = DispatchSemaphore(value: 0)
        _ = server.requestGate(done: done)
        #expect(server.gate.arrived())
        #expect(throws: TestHTTPClient.Failure.self) { try server.client(timeout: 0.5).request("GET", "/fast") }
        server.gate.open()
        #expect(done.wait(timeout: .now() + 5) == .success)
    }

    @Test func manyOffloadedRequestsEachGetTheirOwnAnswer() throws {
        let server = try Server()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let client = server.client()
            for index in 0..<25 {
                let n = "\(worker)-\(index)"
                let body = String(repeating: "x", count: index)
                do {
                    // Kept alive: the next request follows on the same (resumed) connection.
                    let response = try client.request("POST", "/echo/\(n)", headers: [], json: body)
                    if response.status != 200 || response.value?["n"] != .string(n)
                        || response.value?["length"] != .int(Int64(index))
                    {
                        failures.withLock { $0.append("\(n): \(response)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(n): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        // Each completes once its answer is sent (a moment after the client read it).
        server.server.waitForRequestsInFlight { $0 == 0 }
        #expect(server.server.requestsInFlight == 0)
    }

    @Test func anErrorThrownOnAWorkerIsAnsweredLikeAnyOther() throws {
        let server = try Server()
        let response = try server.client().request("GET", "/teapot")
        #expect(response.status == 418)
        #expect(response.errorFields?["base"] == ["short"])
    }

    @Test func withEveryWorkerBusyAndTheQueueFullTheNextIs503() throws {
        let server = try Server {
            $0.workerThreadCount = 1
            $0.workerQueueLimit = 1
        }
        let done = DispatchSemaphore(value: 0)
        let running = server.requestGate(done: done)
        #expect(server.gate.arrived())
        let queued = server.requestGate(done: done)
        // The queued one is suspended too: wait until the server counts it.
        server.server.waitForRequestsInFlight { $0 >= 2 }
        let refused = try server.client().request("GET", "/gate")
        #expect(refused.status == 503, "\(refused)")
        #expect(refused.header("retry-after") == "1")
        #expect(refused.errorFields?["base"]?.first?.contains("busy") == true)
        // Sync routes are not held up by the full queue.
        #expect(try server.client().request("GET", "/fast").status == 200)
        server.gate.open()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(try running.get()?.get().status == 200)
        #expect(try queued.get()?.get().status == 200)
    }

    @Test func aClientLeavingWhileSuspendedLeavesNothingBehind() throws {
        let server = try Server()
        let client = server.client()
        try client.send(raw: Array("GET /gate HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        #expect(server.gate.arrived())
        client.close()
        server.gate.open()
        // The answer goes to a closed socket; the request completes and the server serves on.
        server.server.waitForRequestsInFlight { $0 == 0 }
        #expect(server.server.requestsInFlight == 0)
        #expect(try server.client().request("GET", "/fast").status == 200)
        #expect(try server.client().request("GET", "/gate").status == 200)
    }

    @Test func shutdownWaitsForASuspendedRequestWithinTheGrace() throws {
        let server = try Server()
        let done = DispatchSemaphore(value: 0)
        let result = server.requestGate(done: done)
        #expect(server.gate.arrived())
        server.openGate(after: 0.3)
        server.server.shutdown(gracePeriod: .seconds(5))
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(try result.get()?.get().status == 200)
    }

    @Test(.bug(id: "issue-16-6", "sign-ups committed while their clients saw a connection error at SIGTERM"))
    func pastTheGraceQueuedRequestsAre503AndNeverRunWhileRunningOnesFinishAndAreAnswered() throws {
        let server = try Server { $0.workerThreadCount = 1 }
        let done = DispatchSemaphore(value: 0)
        let running = server.requestGate(done: done)
        #expect(server.gate.arrived())
        let queued = server.requestGate(done: done)
        server.server.waitForRequestsInFlight { $0 >= 2 }
        // The running one finishes after the grace, within the moment more it gets.
        server.openGate(after: 0.5)
        server.server.shutdown(gracePeriod: .milliseconds(200))
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(done.wait(timeout: .now() + 5) == .success)
        let first = try #require(try running.get()?.get())
        #expect(first.status == 200, "\(first)")
        let second = try #require(try queued.get()?.get())
        #expect(second.status == 503, "\(second)")
        #expect(second.header("retry-after") == "1")
        // The queued request never reached its handler.
        #expect(!server.gate.arrived(within: 0.3))
    }

    @Test func shutdownPastTheGraceWithAConnectionStillSuspendedNeitherHangsNorCrashes() throws {
        let server = try Server()
        let done = DispatchSemaphore(value: 0)
        let result = server.requestGate(done: done)
        #expect(server.gate.arrived())
        let started = ContinuousClock.now
        server.server.shutdown(gracePeriod: .milliseconds(200))
        #expect(ContinuousClock.now - started < .seconds(3))
        // The client gets the server's 503 or a closed connection, never the worker's late answer.
        #expect(done.wait(timeout: .now() + 5) == .success)
        switch result.get() {
        case .success(let response)?: #expect(response.status == 503, "\(response)")
        case .failure?: break
        case nil: Issue.record("no outcome")
        }
        // The worker finishes after the daemon is gone: its answer is dropped, no crash.
        server.gate.open()
        #expect(Poll.until { server.server.offloadedRequests == 0 }, "the worker has finished")
        let port = server.port
        #expect(throws: TestHTTPClient.Failure.self) { try TestHTTPClient(port: port).request("GET", "/fast") }
    }

    /// A job done is not kept by the worker that ran it: it holds the server (through what answers it), which holds
    /// the workers, and a server nobody else held stayed alive with its threads, its store and its request bodies.
    @Test func aServerThatAnsweredOffloadedRequestsIsFreedOnceNobodyHoldsIt() throws {
        weak var freed: HTTPServer?
        do {
            var router = Router()
            router.post("/echo", offloaded: true) { request in .json(["length": .int(Int64(request.body.count))]) }
            let server = HTTPServer(
                configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0),
                responder: Application(router: router, middleware: []), logger: .disabled)
            freed = server
            for _ in 0..<3 {
                let response = server.respond(
                    inProcess: .init(method: "POST", target: "/echo", body: Array("secret".utf8)), peer: "127.0.0.1")
                #expect(response.status == .ok, "\(response)")
            }
        }
        // The worker lets go of a job once it returns, a moment after the answer is handed over.
        #expect(Poll.until { freed == nil })
    }
}
