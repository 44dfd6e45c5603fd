import Foundation
import HeraldModel

@testable import HeraldSDK

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Timestamp

    init(_ start: Timestamp = Timestamp(iso8601: "2025-05-01T09:30:00Z")!) { now = start }

    var time: Timestamp { lock.withLock { now } }
    func advance(by duration: Duration) { lock.withLock { now = now.adding(duration) } }
    func set(_ time: Timestamp) { lock.withLock { now = time } }
    var wallClock: WallClock { WallClock { [self] in time } }
}

/// Work scheduled on the test's clock, run when the test says.
final class ManualScheduler: WorkScheduler, @unchecked Sendable {
    struct Item {
        let id: Int
        let due: Timestamp
        let work: @Sendable () async -> Void
    }

    private let lock = NSLock()
    private let clock: TestClock
    private var items: [Item] = []
    private var nextID = 0

    init(clock: TestClock) { self.clock = clock }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () async -> Void) -> ScheduledWork {
        let id = lock.withLock { () -> Int in
            nextID += 1
            items.append(Item(id: nextID, due: clock.time.adding(delay), work: work))
            return nextID
        }
        return ScheduledWork { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.items.removeAll { $0.id == id } }
        }
    }

    /// When the earliest work is due.
    var nextDue: Timestamp? { lock.withLock { items.map(\.due).min() } }
    /// How many are waiting.
    var count: Int { lock.withLock { items.count } }

    /// Runs (and removes) the work due by now, earliest first, until none is.
    func runDue() async {
        while true {
            let now = clock.time
            let item = lock.withLock { () -> Item? in
                guard
                    let index = items.indices.filter({ items[$0].due <= now }).min(by: { items[$0].due < items[$1].due }
                    )
                else { return nil }
                return items.remove(at: index)
            }
            guard let item else { return }
            await item.work()
        }
    }

    /// Moves the clock to the next due work and runs it.
    func advanceToNext() async {
        guard let due = nextDue else { return }
        if due > clock.time { clock.set(due) }
        await runDue()
    }
}

/// A fixed-seed random source (SplitMix64).
func seededRandom(_ seed: UInt64 = 42) -> RandomSource {
    let state = LockedValue(seed)
    return RandomSource {
        state.update { value -> UInt64 in
            value &+= 0x9E37_79B9_7F4A_7C15
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}

/// A value behind a lock.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    var current: Value { lock.withLock { value } }

    @discardableResult
    func update<R>(_ change: (inout Value) -> R) -> R { lock.withLock { change(&value) } }
}

/// Records what the SDK asks to show.
final class RecordingPresenter: NotificationPresenter, @unchecked Sendable {
    private let state = LockedValue<(screens: [NotificationScreen], posted: [HeraldMessage], removed: [String])>(
        ([], [], []))
    /// Whether shown screens report `didAppear` at once, as the real card does.
    var appearsAtOnce = true
    /// Whether there is a window to show the screen over.
    let hasWindow = LockedValue(true)
    /// Whether presenting succeeds (false: the presenter waited and the card never could be presented).
    let presentable = LockedValue(true)

    func canShowScreen() async -> Bool { hasWindow.current }

    func presentScreen(_ screen: NotificationScreen) async -> Bool {
        guard presentable.current else { return false }
        await showScreen(screen)
        return true
    }

    func showScreen(_ screen: NotificationScreen) async {
        state.update { $0.screens.append(screen) }
        if appearsAtOnce { screen.didAppear() }
    }
    func postSystemNotification(_ message: HeraldMessage) async { state.update { $0.posted.append(message) } }
    func removeSystemNotification(messageID: String) async { state.update { $0.removed.append(messageID) } }

    var screens: [NotificationScreen] { state.current.screens }
    var shownIDs: [String] { screens.map(\.message.id) }
    var postedIDs: [String] { state.current.posted.map(\.id) }
    var removedIDs: [String] { state.current.removed }
}

/// Records links opened.
final class RecordingOpener: URLOpener, @unchecked Sendable {
    let opened = LockedValue<[String]>([])
    let answer: Bool
    init(answer: Bool = true) { self.answer = answer }
    func open(_ url: String) async -> Bool {
        opened.update { $0.append(url) }
        return answer
    }
}

/// Records the regions asked for.
final class RecordingRegionMonitor: RegionMonitor, @unchecked Sendable {
    let requests = LockedValue<[[MonitoredRegion]]>([])
    func monitor(_ regions: [MonitoredRegion]) async { requests.update { $0.append(regions) } }
    var last: [MonitoredRegion]? { requests.current.last }
}

/// Collects diagnostics.
final class DiagnosticLog: @unchecked Sendable {
    let entries = LockedValue<[HeraldDiagnostic]>([])
    var handler: @Sendable (HeraldDiagnostic) -> Void {
        { [entries] diagnostic in entries.update { $0.append(diagnostic) } }
    }
    var codes: [HeraldDiagnostic.Code] { entries.current.map(\.code) }
}

/// A transport answering from a closure, recording every request.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    typealias Handler = @Sendable (TransportRequest) -> Result<TransportResponse, TransportError>
    let requests = LockedValue<[TransportRequest]>([])
    private let handler: LockedValue<Handler>

    init(_ handler: @escaping Handler) { self.handler = LockedValue(handler) }

    func setHandler(_ handler: @escaping Handler) { self.handler.update { $0 = handler } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        requests.update { $0.append(request) }
        return try handler.current(request).get()
    }

    /// `METHOD path` of each request, query left out.
    var lines: [String] {
        requests.current.map { request in
            let path = URL(string: request.url)?.path ?? request.url
            return "\(request.method) \(path)"
        }
    }
}

extension TransportResponse {
    static func json(_ status: Int, _ body: JSON, headers: [(name: String, value: String)] = []) -> TransportResponse {
        TransportResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body.encoded)
    }
}

/// The configuration tests use.
func testConfiguration(apiKey: String = "live_key", options: HeraldConfiguration.Options = .init())
    -> HeraldConfiguration
{
    HeraldConfiguration(
        apiKey: apiKey, baseURL: "https://push.example.com",
        device: DeviceInfo(
            platform: "ios", appVersion: "3.2", osVersion: "17.4", deviceModel: "iPhone15,2", locale: "en_US",
            timezone: "America/New_York"),
        options: options)
}

/// A message for tests.
func testMessage(
    _ id: String = "m-1", headline: String = "Burger Tuesday", media: MessageMedia? = nil,
    cta: CallToAction? = CallToAction(label: "Order", url: "https://example.com/order"), sandbox: Bool = false,
    questions: [SurveyQuestion] = []
) -> HeraldMessage {
    HeraldMessage(
        id: id, campaignID: "c-1", type: questions.isEmpty ? .message : .survey, headline: headline,
        body: "Two for one",
        isSandbox: sandbox, media: media, cta: cta, questions: questions)
}

/// The system's notification permission, as the test sets it; records what was asked.
final class FakeNotificationAuthorizer: NotificationAuthorizer, @unchecked Sendable {
    let status: LockedValue<NotificationAuthorization>
    /// What a request turns the status into.
    let answer: LockedValue<NotificationAuthorization>
    let requests = LockedValue<[Bool]>([])

    init(_ status: NotificationAuthorization = .notDetermined, answer: NotificationAuthorization = .authorized) {
        self.status = LockedValue(status)
        self.answer = LockedValue(answer)
    }

    func authorization() async -> NotificationAuthorization { status.current }

    func requestAuthorization(provisional: Bool) async -> NotificationAuthorization {
        requests.update { $0.append(provisional) }
        let answer = provisional ? NotificationAuthorization.provisional : answer.current
        status.update { $0 = answer }
        return answer
    }
}

/// The system's location service: a permission the test sets, and fixes the test hands to whoever started updates.
final class FakeLocationService: LocationService, @unchecked Sendable {
    let status: LockedValue<Permissions.Location>
    let answer: LockedValue<Permissions.Location>
    let requests = LockedValue<[Permissions.Location]>([])
    private let deliver = LockedValue<(@Sendable (LocationFix) async -> Void)?>(nil)
    let starts = LockedValue(0)
    let stops = LockedValue(0)

    init(_ status: Permissions.Location = .none, answer: Permissions.Location = .always) {
        self.status = LockedValue(status)
        self.answer = LockedValue(answer)
    }

    func authorization() async -> Permissions.Location { status.current }

    func requestAuthorization(_ level: Permissions.Location) async -> Permissions.Location {
        requests.update { $0.append(level) }
        let answer = answer.current
        status.update { $0 = answer }
        return answer
    }

    func startUpdates(_ deliver: @escaping @Sendable (LocationFix) async -> Void) async {
        starts.update { $0 += 1 }
        self.deliver.update { $0 = deliver }
    }

    func stopUpdates() async {
        stops.update { $0 += 1 }
        deliver.update { $0 = nil }
    }

    /// True while updates are on.
    var isUpdating: Bool { deliver.current != nil }

    /// A significant location change (or a fix after a region event), as the system reports it.
    func report(_ fix: LocationFix) async { await deliver.current?(fix) }
}

/// Records the badge counts set.
final class RecordingBadge: AppBadge, @unchecked Sendable {
    let counts = LockedValue<[Int]>([])
    func setCount(_ count: Int) async { counts.update { $0.append(count) } }
}
