import Foundation
import HeraldModel

@testable import HeraldSDK

/// A client wired to fakes: the device API in memory, a test clock and scheduler, recording presenter, opener and
/// region monitor. Restarting makes a new client over the same storage, as an app relaunch does.
final class Harness: @unchecked Sendable {
    let api: FakeDeviceAPI
    let transport: ScriptedTransport
    let storage: MemoryStorage
    let clock: TestClock
    let scheduler: ManualScheduler
    let presenter = RecordingPresenter()
    let opener = RecordingOpener()
    let monitor = RecordingRegionMonitor()
    let diagnostics = DiagnosticLog()
    let badge = RecordingBadge()
    let events = LockedValue<[HeraldEvent]>([])
    /// The system's permissions, when the test gives them (the live environment always does).
    let authorizer: FakeNotificationAuthorizer?
    let location: FakeLocationService?
    /// The Keychain's stand-in, when the test gives one.
    let secureStorage: MemoryStorage?
    private(set) var client: HeraldClient
    let configuration: HeraldConfiguration

    init(
        configuration: HeraldConfiguration = testConfiguration(), storage: MemoryStorage = MemoryStorage(),
        secureStorage: MemoryStorage? = nil, api: FakeDeviceAPI = FakeDeviceAPI(),
        authorizer: FakeNotificationAuthorizer? = nil, location: FakeLocationService? = nil
    ) {
        self.api = api
        self.storage = storage
        self.secureStorage = secureStorage
        self.configuration = configuration
        self.authorizer = authorizer
        self.location = location
        clock = TestClock(api.serverTime)
        api.set(\.clock, clock.wallClock)
        scheduler = ManualScheduler(clock: clock)
        transport = api.transport()
        client = HeraldClient(
            configuration: configuration,
            environment: Self.environment(
                transport: transport, storage: storage, secureStorage: secureStorage, clock: clock,
                scheduler: scheduler, presenter: presenter, monitor: monitor, location: location,
                authorizer: authorizer, badge: badge, opener: opener, diagnostics: diagnostics))
    }

    var environment: HeraldEnvironment {
        Self.environment(
            transport: transport, storage: storage, secureStorage: secureStorage, clock: clock, scheduler: scheduler,
            presenter: presenter, monitor: monitor, location: location, authorizer: authorizer, badge: badge,
            opener: opener, diagnostics: diagnostics)
    }

    private static func environment(
        transport: ScriptedTransport, storage: MemoryStorage, secureStorage: MemoryStorage?, clock: TestClock,
        scheduler: ManualScheduler, presenter: RecordingPresenter, monitor: RecordingRegionMonitor,
        location: FakeLocationService?, authorizer: FakeNotificationAuthorizer?, badge: RecordingBadge,
        opener: RecordingOpener, diagnostics: DiagnosticLog
    ) -> HeraldEnvironment {
        HeraldEnvironment(
            transport: transport, storage: storage, secureStorage: secureStorage, clock: clock.wallClock,
            scheduler: scheduler, random: seededRandom(UInt64(storage.writeCount) &+ 7), presenter: presenter,
            regionMonitor: monitor, location: location, notificationAuthorizer: authorizer, badge: badge,
            urlOpener: opener, diagnostics: diagnostics.handler)
    }

    /// Starts the client (in front, listening to events).
    @discardableResult
    func start(foreground: Bool = true) async -> HeraldClient {
        await client.setEventListener { [events] event in events.update { $0.append(event) } }
        await client.start()
        await client.setForeground(foreground)
        return client
    }

    /// A new client over the same storage and server: the app launched again.
    func relaunch() async -> HeraldClient {
        client = HeraldClient(configuration: configuration, environment: environment)
        return await start()
    }

    /// The recorded event types, in order.
    var eventTypes: [String] { events.current.map(\.type.rawValue) }

    /// Runs scheduled work until the event queue is sent.
    func flush() async {
        await scheduler.runDue()
        await client.flushEvents()
    }
}
