import Foundation
import HeraldModel

/// The persistent event queue: every event is stored before it is sent, sent in batches, and deleted only after
/// a 2xx (rules in `EventQueueState`). Recording is synchronous, so a tap records its event before the screen
/// goes; sending happens on the scheduler.
final class EventQueue: @unchecked Sendable {
    /// Sends a batch. Plain `throws`, though only `HeraldError` is thrown: a typed-throws function type stored (or
    /// made optional, or passed to a generic) needs the runtime of iOS 18, and the SDK runs on iOS 16.
    typealias Sender = @Sendable ([DeviceEvent]) async throws -> TransportResponse

    private let lock = NSLock()
    private var state: EventQueueState
    private var loaded = false
    private var flushing = false
    private var wake: ScheduledWork?
    private var wakeAt: Timestamp?
    private let store: StoredValue
    private let clock: WallClock
    private let random: RandomSource
    private let scheduler: any WorkScheduler
    private let sendDelay: Duration
    private let diagnostics: @Sendable (HeraldDiagnostic) -> Void
    private var sender: Sender?

    init(
        options: HeraldConfiguration.Options, storage: any PersistentStorage, clock: WallClock, random: RandomSource,
        scheduler: any WorkScheduler, diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void
    ) {
        state = EventQueueState()
        state.maximumEvents = options.maximumQueuedEvents
        state.maximumAge = options.maximumEventAge
        state.batchSize = max(1, min(options.eventBatchSize, DeviceEventValidator.maximumBatchSize))
        state.baseDelay = options.retryBaseDelay
        state.maximumDelay = options.retryMaximumDelay
        store = StoredValue(storage: storage, key: "events")
        self.clock = clock
        self.random = random
        self.scheduler = scheduler
        sendDelay = options.eventSendDelay
        self.diagnostics = diagnostics
    }

    /// Sets how batches are sent (`POST /api/v1/events` through the install session).
    func setSender(_ sender: @escaping Sender) { lock.withLock { self.sender = sender } }

    /// The events waiting, oldest first.
    var pending: [DeviceEvent] {
        lock.withLock {
            loadLocked()
            return state.events
        }
    }

    /// When the next send may happen, if a retry is waiting.
    var retryAt: Timestamp? { lock.withLock { state.retryAt } }

    /// Stores `event` and schedules a send. Storage unavailable: kept in memory and stored once it is.
    func record(_ event: DeviceEvent) {
        var messages: [HeraldDiagnostic] = []
        lock.withLock {
            loadLocked()
            messages = state.append(event)
            persistLocked()
            scheduleLocked(after: sendDelay)
        }
        messages.forEach(diagnostics)
    }

    /// Sends every batch that may go now, until the queue is empty or a send fails (which schedules the retry).
    func flush() async {
        let start: Sender? = lock.withLock {
            guard !flushing, let sender else { return nil }
            flushing = true
            return sender
        }
        guard let sender = start else { return }
        defer { lock.withLock { flushing = false } }
        while true {
            let now = clock.now()
            var messages: [HeraldDiagnostic] = []
            let batch: [DeviceEvent]? = lock.withLock {
                loadLocked()
                messages = state.dropExpired(now: now)
                if !messages.isEmpty { persistLocked() }
                let batch = state.nextBatch(now: now)
                if batch == nil, !state.events.isEmpty, let retryAt = state.retryAt {
                    scheduleLocked(after: retryAt.since(now))
                }
                return batch
            }
            messages.forEach(diagnostics)
            guard let batch else { break }
            let outcome = await send(batch, with: sender)
            let done = lock.withLock { () -> Bool in
                messages = state.complete(batch.map(\.id), outcome: outcome, now: clock.now(), random: random)
                persistLocked()
                if case .retryable = outcome, let retryAt = state.retryAt {
                    scheduleLocked(after: retryAt.since(clock.now()))
                    return true
                }
                return false
            }
            messages.forEach(diagnostics)
            if done { break }
        }
    }

    /// Lets a waiting retry go now and flushes (the app came to the front).
    func retryNow() async {
        lock.withLock { state.retryNow() }
        await flush()
    }

    /// Forgets every event (deleteMyData).
    func clear() {
        lock.withLock {
            state.clear()
            wake?.cancel()
            wake = nil
            wakeAt = nil
            try? store.clear()
        }
    }

    private func send(_ batch: [DeviceEvent], with sender: Sender) async -> EventQueueState.Outcome {
        let response: TransportResponse
        do {
            response = try await sender(batch)
        } catch {
            guard let error = error as? HeraldError else { return .retryable(retryAfter: nil) }
            if error.isRetryable || error.code == .unauthorized { return .retryable(retryAfter: nil) }
            if let status = error.status { return .refused(status: status) }
            return .retryable(retryAfter: nil)
        }
        switch response.status {
        case 200..<300:
            var rejected: [(id: String, errors: String)] = []
            if let results = (try? JSON.parse(response.body))?["data"]?["results"]?.arrayValue {
                for result in results where result["status"]?.stringValue == "rejected" {
                    rejected.append(
                        (result["id"]?.stringValue ?? "?", result["errors"]?.encodedString ?? "no errors given"))
                }
            }
            return .accepted(rejected: rejected)
        case 408, 429, 500...599:
            let retryAfter = response.header("Retry-After").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            return .retryable(retryAfter: retryAfter.map { .seconds(max(0, $0)) })
        default:
            return .refused(status: response.status)
        }
    }

    // MARK: - Locked helpers

    private func loadLocked() {
        guard !loaded else { return }
        do {
            if let json = try store.load() { state.restore(from: json) }
            loaded = true
        } catch {
            // Unavailable: keep events in memory until storage can be read, then merge.
        }
    }

    private func persistLocked() {
        guard loaded else { return }
        do {
            try store.save(state.json)
        } catch {
            diagnostics(HeraldDiagnostic(code: .storage, message: "events not stored: \(error)"))
        }
    }

    /// Wakes `flush` after `delay` unless a wake-up is already due sooner.
    private func scheduleLocked(after delay: Duration) {
        let at = clock.now().adding(max(delay, .zero))
        if let wakeAt, wakeAt <= at, wake != nil { return }
        wake?.cancel()
        wakeAt = at
        wake = scheduler.schedule(after: max(delay, .zero)) { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.wake = nil
                self.wakeAt = nil
            }
            await self.flush()
        }
    }
}
