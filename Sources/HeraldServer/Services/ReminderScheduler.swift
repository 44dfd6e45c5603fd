import Foundation
import HeraldModel
import HeraldObservability
import HeraldStore

/// Sends offer-expiry reminders: every `interval`, each business's rewards expiring within its lead time get
/// one reminder. What was sent is in the store (marked with the entry, in one transaction), so a restart
/// neither loses nor repeats a reminder, and several nodes may run it at once.
final class ReminderScheduler: @unchecked Sendable {
    private let store: any Store
    private let notifications: NotificationService
    private let clock: WallClock
    private let interval: Duration
    private let logger: Logger
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    init(store: any Store, notifications: NotificationService, clock: WallClock, interval: Duration, logger: Logger) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Starts the loop (first pass at once).
    func start() {
        let thread = Thread { [self] in
            repeat {
                runOnce()
            } while stopped.wait(
                timeout: .now()
                    + .milliseconds(
                        Int(
                            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000
                        ))) == .timedOut
            finished.signal()
        }
        thread.name = "herald-scheduler"
        self.thread = thread
        thread.start()
    }

    /// Stops the loop after the pass in progress.
    func stop() {
        guard thread != nil else { return }
        stopped.signal()
        finished.wait()
        thread = nil
    }

    /// One pass over every business. Returns how many reminders went out.
    @discardableResult
    func runOnce() -> Int {
        var sent = 0
        do {
            for business in try store.businesses() where business.settings.offerReminderLeadSeconds > 0 {
                let now = clock.now()
                let before = now.adding(.seconds(business.settings.offerReminderLeadSeconds))
                let drafter = try notifications.drafter(for: business)
                while true {
                    let entries = try store.sendExpiryReminders(
                        businessID: business.id, expiringBefore: before, limit: 500, drafter: drafter, at: now)
                    sent += entries.count
                    if entries.count < 500 { break }
                }
            }
        } catch {
            logger.error("offer reminders failed; next pass retries", ["error": "\(error)"])
        }
        if sent > 0 {
            notifications.jobsAdded()
            logger.info("offer expiry reminders sent", ["reminder.count": String(sent)])
        }
        return sent
    }
}
