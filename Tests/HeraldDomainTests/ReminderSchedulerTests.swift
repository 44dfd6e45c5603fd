import Foundation
import HeraldDomain
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

/// The offer-expiry reminders: once each across restarts, and passes on the clock it is given.
@Suite("Reminder scheduler")
struct ReminderSchedulerTests {
    @Test("a restart neither repeats a reminder nor loses one that came due while the node was down")
    func remindersSurviveRestarts() throws {
        let world = try StoreFixture(.sqlite)
        try world.settings { $0.offerReminderLeadSeconds = 3600 }
        /// One run of a node: a store of its own on the file and a scheduler pass.
        func node() throws -> ReminderScheduler {
            let store = try world.backend.reopen(world.path)
            let loyalty = LoyaltyService(
                store: store, notifications: NotificationService(), clock: world.clock.wallClock)
            return ReminderScheduler(
                store: store, loyalty: loyalty, clock: world.clock.wallClock, interval: .seconds(3600),
                logger: .disabled)
        }
        func grant(expiringIn seconds: Int64) throws {
            _ = try world.grant(try world.offer(validFor: seconds), to: [world.user.id], at: world.clock.now)
        }
        func reminders() throws -> Int { try world.entries(of: world.user).filter { $0.event == "offer_expiry" }.count }

        var scheduler = try node()
        try grant(expiringIn: 600)
        #expect(scheduler.runOnce() == 1)
        #expect(scheduler.runOnce() == 0, "never twice in one run")

        // Restart: the reminder sent before is not sent again.
        scheduler = try node()
        #expect(scheduler.runOnce() == 0)
        #expect(try reminders() == 1)

        // A reward that came due while no node ran is reminded by the next one to start, once.
        try grant(expiringIn: 900)
        scheduler = try node()
        #expect(scheduler.runOnce() == 1)
        scheduler = try node()
        #expect(scheduler.runOnce() == 0)
        #expect(try reminders() == 2)
    }

    @Test("as a service it passes at once, then once per interval of its clock, and stops when asked")
    func passesFollowTheClock() async throws {
        let (world, group, running) = try await runningScheduler(interval: .seconds(600))
        let waiter = CommitWaiter(world.store)
        // The first pass ran at start (nothing due); a reward granted now expires within the lead time.
        _ = try world.grant(try world.offer(validFor: 1800), to: [world.user.id], at: world.clock.now)
        #expect(try world.entries(of: world.user).filter { $0.event == "offer_expiry" }.isEmpty, "no pass yet")
        world.clock.advance(by: .seconds(600))
        #expect(
            try waiter.wait(timeout: .seconds(10)) { _ in
                try world.entries(of: world.user).contains { $0.event == "offer_expiry" }
            })
        group.stop()
        try await running.value
    }

    @Test("an offer about to expire is reminded once, however many passes follow")
    func anOfferAboutToExpireIsRemindedOnce() async throws {
        let (world, group, running) = try await runningScheduler(interval: .seconds(60))
        _ = try world.grant(try world.offer(validFor: 1800), to: [world.user.id], at: world.clock.now)
        func reminders() throws -> Int { try world.entries(of: world.user).filter { $0.event == "offer_expiry" }.count }
        // Each pass ends with the scheduler asleep on the clock again: a pass has run exactly when it sleeps anew.
        for pass in 1...4 {
            world.clock.advance(by: .seconds(60))
            #expect(await waitForSleeper(world.clock), "pass \(pass) ran")
            #expect(try reminders() == 1, "after pass \(pass)")
        }
        group.stop()
        try await running.value
    }

    /// A world whose rewards are reminded an hour before they expire, and its scheduler running as a service every
    /// `interval` of the world's clock, its first pass (at start, nothing due) over.
    private func runningScheduler(interval: Duration) async throws -> (
        StoreFixture, WorkerGroup, Task<Void, any Error>
    ) {
        let world = try StoreFixture(.sqlite)
        try world.settings { $0.offerReminderLeadSeconds = 3600 }
        let scheduler = ReminderScheduler(
            store: world.store, loyalty: world.loyalty, clock: world.clock.wallClock, interval: interval,
            logger: .disabled)
        let group = WorkerGroup([("scheduler", scheduler)], logger: .disabled)
        let running = group.start()
        #expect(await waitForSleeper(world.clock), "the first pass ran")
        return (world, group, running)
    }

    /// Waits until the scheduler sleeps on the clock (it does once each pass is over).
    private func waitForSleeper(_ clock: ManualClock) async -> Bool {
        await Poll.eventually { clock.sleeperCount > 0 }
    }
}
