import Foundation
import HeraldLifecycle
import HeraldTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The supervisor every long-lived part of Herald runs under: workers stop in the reverse of their start order,
/// each asked gracefully and waited for before the next; a signal, a `stop()`, a worker returning or a worker
/// failing stops the group, and a failure surfaces from `run`.
@Suite("Worker group")
struct ServiceGroupTests {
    /// What the workers did, in order.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])

        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
        /// The entries starting with `word`, in order.
        func entries(_ word: String) -> [String] { all.filter { $0.hasPrefix(word + " ") } }
    }

    /// Notes its start, waits until asked to stop, notes how it was asked (gracefully, or by cancellation), finishes
    /// what it holds (noted too), and returns.
    struct Waiting: Worker {
        let name: String
        let log: Log

        func run() async throws {
            log.append("start \(name)")
            await GracefulShutdown.wait()
            log.append((Task.isCancelled ? "cancelled " : "asked ") + name)
            log.append("finished \(name)")
        }
    }

    /// Notes its start and fails.
    struct Failing: Worker {
        let name: String
        let log: Log

        func run() async throws {
            log.append("start \(name)")
            throw Failure(worker: name)
        }
    }

    struct Failure: Error, Equatable {
        let worker: String
    }

    /// Whether `task` ends within `timeout`; if it does not, the group is stopped so that the test can end.
    static func ends(_ task: Task<Void, any Error>, group: WorkerGroup, within timeout: Duration = .seconds(10)) async
        -> Bool
    {
        let ended = Mutex(false)
        let watcher = Task {
            _ = try? await task.value
            ended.withLock { $0 = true }
        }
        let inTime = await Poll.eventually(timeout: timeout) { ended.withLock { $0 } }
        if !inTime { group.stop() }
        _ = await watcher.value
        return inTime
    }

    @Test("workers stop one at a time in the reverse of their start order, each finishing before the next is asked")
    func orderedStop() async throws {
        let log = Log()
        // Started in this order: what does the work first, what takes work in last.
        let group = WorkerGroup(
            ["engine", "scheduler", "api"].map { ($0, Waiting(name: $0, log: log)) }, logger: .disabled)
        let running = group.start()
        #expect(await Poll.eventually { log.entries("start").count == 3 })
        #expect(log.entries("asked").isEmpty, "nothing is asked to stop before the group is")
        group.stop()
        try await running.value
        let stopping = log.all.filter { !$0.hasPrefix("start ") }
        #expect(
            stopping == [
                "asked api", "finished api", "asked scheduler", "finished scheduler", "asked engine", "finished engine",
            ])
    }

    @Test("a signal the group handles stops it gracefully")
    func aSignalStopsTheGroup() async throws {
        let log = Log()
        let group = WorkerGroup(
            [("one", Waiting(name: "one", log: log)), ("two", Waiting(name: "two", log: log))], logger: .disabled,
            signals: [SIGUSR2])
        let running = group.start()
        // The group handles the signal from before its workers start: once they have, it is safe to send.
        #expect(await Poll.eventually { log.entries("start").count == 2 })
        kill(getpid(), SIGUSR2)
        #expect(await Self.ends(running, group: group), "the signal stopped the group")
        #expect(log.entries("asked") == ["asked two", "asked one"])
        #expect(log.entries("cancelled").isEmpty)
    }

    @Test("a signal sent the moment the group is made, before it runs, still stops it (ten times over)")
    func aSignalAtOnceIsNotLost() async throws {
        // Dispatch's signal sources armed themselves later than `resume()`: a signal in between was ignored, and
        // `herald serve` stopped at once (as ServeCommandTests stops it) ran on.
        for _ in 0..<10 {
            let log = Log()
            let group = WorkerGroup(
                [("one", Waiting(name: "one", log: log))], logger: .disabled, signals: [SIGUSR1])
            kill(getpid(), SIGUSR1)
            #expect(await Self.ends(group.start(), group: group, within: .seconds(5)), "the signal stopped the group")
        }
    }

    @Test("a worker that throws stops the others gracefully, and its error surfaces from run")
    func aFailureStopsTheOthersAndSurfaces() async throws {
        let log = Log()
        let group = WorkerGroup(
            [
                ("first", Waiting(name: "first", log: log)), ("failing", Failing(name: "failing", log: log)),
                ("last", Waiting(name: "last", log: log)),
            ], logger: .disabled)
        let running = group.start()
        #expect(await Self.ends(running, group: group), "the failure stopped the group")
        await #expect(throws: Failure(worker: "failing")) { try await running.value }
        #expect(log.entries("finished") == ["finished last", "finished first"])
        #expect(log.entries("cancelled").isEmpty, "asked, not cancelled")
    }

    @Test("a worker that returns on its own stops the others, without an error")
    func aServiceReturningStopsTheGroup() async throws {
        struct Returning: Worker {
            func run() async throws {}
        }
        let log = Log()
        let group = WorkerGroup(
            [("waiting", Waiting(name: "waiting", log: log)), ("returning", Returning())], logger: .disabled)
        let running = group.start()
        #expect(await Self.ends(running, group: group))
        try await running.value
        #expect(log.entries("finished") == ["finished waiting"])
    }

    @Test("graceful shutdown reaches every worker, whichever way it listens, and each finishes what it holds")
    func gracefulShutdownReachesEveryService() async throws {
        /// Listens with a handler, and finishes the work it holds once asked: it is let go only then.
        struct Holding: Worker {
            let log: Log
            let release: Wakeup

            func run() async throws {
                let wakeup = Wakeup()
                GracefulShutdown.onRequest { wakeup.signal() }
                log.append("start holding")
                while !GracefulShutdown.isRequested { await wakeup.wait() }
                log.append((Task.isCancelled ? "cancelled" : "asked") + " holding")
                await release.wait()
                log.append("finished holding")
            }
        }
        let log = Log()
        let release = Wakeup()
        let group = WorkerGroup(
            [
                ("waiting", Waiting(name: "waiting", log: log)), ("holding", Holding(log: log, release: release)),
                ("another", Waiting(name: "another", log: log)),
            ], logger: .disabled)
        let running = group.start()
        #expect(await Poll.eventually { log.entries("start").count == 3 })
        group.stop()
        // The group waits for the holding worker to finish before it asks the next one.
        #expect(await Poll.eventually { log.entries("asked").count == 2 })
        #expect(log.entries("asked") == ["asked another", "asked holding"])
        #expect(log.entries("finished") == ["finished another"])
        release.signal()
        try await running.value
        let all = log.all
        #expect(
            try #require(all.firstIndex(of: "finished holding")) < #require(all.firstIndex(of: "asked waiting")),
            "\(all)")
        #expect(log.entries("asked") == ["asked another", "asked holding", "asked waiting"])
        #expect(log.entries("finished") == ["finished another", "finished holding", "finished waiting"])
        #expect(log.entries("cancelled").isEmpty)
    }

    @Test("cancelling the group's task cancels every worker at once")
    func cancellingStopsEveryServiceAtOnce() async throws {
        let log = Log()
        let group = WorkerGroup(
            [("one", Waiting(name: "one", log: log)), ("two", Waiting(name: "two", log: log))], logger: .disabled)
        let running = group.start()
        #expect(await Poll.eventually { log.entries("start").count == 2 })
        running.cancel()
        #expect(await Self.ends(running, group: group))
        #expect(Set(log.entries("cancelled")) == ["cancelled one", "cancelled two"])
    }
}
