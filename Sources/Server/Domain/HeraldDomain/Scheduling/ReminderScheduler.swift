import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldStore

/// Sends offer-expiry reminders: every `interval`, each business's rewards expiring within its lead time get
/// one reminder. What was sent is in the store (marked in the transaction that writes the entry), so a restart
/// neither loses nor repeats a reminder, and several nodes may run it at once.
package struct ReminderScheduler: Worker {
    let store: Store
    let loyalty: LoyaltyService
    let clock: WallClock
    let interval: Duration
    let logger: Logger

    /// A scheduler passing every `interval` on `clock`.
    package init(store: Store, loyalty: LoyaltyService, clock: WallClock, interval: Duration, logger: Logger) {
        self.store = store
        self.loyalty = loyalty
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Passes at once, then every `interval`, until asked to stop.
    package func run() async throws {
        let wakeup = Wakeup()
        GracefulShutdown.onRequest { wakeup.signal() }
        while !GracefulShutdown.isRequested {
            runOnce()
            await wakeup.wait(until: clock.now().adding(interval), clock: clock)
        }
    }

    /// One pass over every business. Returns how many reminders went out.
    @discardableResult
    package func runOnce() -> Int {
        var sent = 0
        do {
            for business in try store.read({ try $0.businesses.all() })
            where business.settings.offerReminderLeadSeconds > 0 {
                let before = clock.now().adding(.seconds(business.settings.offerReminderLeadSeconds))
                while true {
                    let entries = try loyalty.sendExpiryReminders(
                        business: business, expiringBefore: before, limit: 500)
                    sent += entries.count
                    if entries.count < 500 { break }
                }
            }
        } catch {
            logger.error("offer reminders failed; next pass retries", ["error": "\(error)"])
        }
        if sent > 0 { logger.info("offer expiry reminders sent", ["reminder.count": String(sent)]) }
        return sent
    }
}
