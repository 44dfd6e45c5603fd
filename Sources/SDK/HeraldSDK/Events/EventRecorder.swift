import Foundation
import HeraldModel

/// Records device events: gives each an id and a time, checks it with the shared `DeviceEventValidator` (so the
/// server won't reject what the SDK queues), queues it, and tells the app's event listener.
final class EventRecorder: @unchecked Sendable {
    private let queue: EventQueue
    private let clock: WallClock
    private let random: RandomSource
    private let diagnostics: @Sendable (HeraldDiagnostic) -> Void
    private let lock = NSLock()
    private var listener: (@Sendable (HeraldEvent) -> Void)?
    private var enabled = true

    init(
        queue: EventQueue, clock: WallClock, random: RandomSource,
        diagnostics: @escaping @Sendable (HeraldDiagnostic) -> Void
    ) {
        self.queue = queue
        self.clock = clock
        self.random = random
        self.diagnostics = diagnostics
    }

    /// Sets (or with nil removes) the event listener.
    func setListener(_ listener: (@Sendable (HeraldEvent) -> Void)?) { lock.withLock { self.listener = listener } }

    /// Stops or resumes recording (stopped after deleteMyData).
    func setEnabled(_ value: Bool) { lock.withLock { enabled = value } }

    /// Records an event about `message` (or none); nil when it was refused (the diagnostic says why) or recording
    /// is stopped.
    @discardableResult
    func record(_ type: DeviceEventType, message: HeraldMessage? = nil, data: JSON? = nil) -> HeraldEvent? {
        record(type, message: message, notificationID: message?.id, data: data)
    }

    /// Records an event about the message `notificationID` when only its id is known (a push that left its message
    /// out, dismissed without the app fetching it).
    @discardableResult
    func record(_ type: DeviceEventType, notificationID: String, data: JSON? = nil) -> HeraldEvent? {
        record(type, message: nil, notificationID: notificationID, data: data)
    }

    private func record(_ type: DeviceEventType, message: HeraldMessage?, notificationID: String?, data: JSON?)
        -> HeraldEvent?
    {
        let (isEnabled, listener) = lock.withLock { (enabled, self.listener) }
        guard isEnabled else { return nil }
        let event = DeviceEvent(
            id: random.uuid(), type: type, occurredAt: clock.now(), notificationID: notificationID, data: data)
        let check = DeviceEventValidator().check(event.json) { id in id == message?.id ? message?.survey : nil }
        guard check.isAccepted else {
            diagnostics(
                HeraldDiagnostic(
                    code: .eventDropped,
                    message: "\(type) not recorded: \(check.problems.map(\.description).joined(separator: "; "))"))
            return nil
        }
        queue.record(event)
        let recorded = HeraldEvent(id: event.id, type: type, occurredAt: event.occurredAt, message: message, data: data)
        listener?(recorded)
        return recorded
    }
}
