import Foundation
import HeraldModel
import HeraldObservability
import HeraldSQLite
import HeraldStore
import HeraldTesting
import Testing

@testable import HeraldServer

/// The offer-expiry reminders across restarts: what was sent is in the database, with the entry.
@Suite("Reminder scheduler")
struct ReminderSchedulerTests {
    @Test("a restart neither repeats a reminder nor loses one that came due while the node was down")
    func remindersSurviveRestarts() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("herald.db")
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        let clock = WallClock { now }

        /// One run of a node: a store on the file and a scheduler pass.
        func node() throws -> (store: SQLStore, scheduler: ReminderScheduler) {
            let database = try SQLiteDatabase(path: path)
            _ = try Migrator.migrate(database, Schema.migrations, at: now.milliseconds)
            let store = SQLStore(database: database)
            let scheduler = ReminderScheduler(
                store: store, notifications: NotificationService(store: store, clock: clock, wake: {}), clock: clock,
                interval: .seconds(3600), logger: .disabled)
            return (store, scheduler)
        }

        var (store, scheduler) = try node()
        let business = try store.createBusiness(
            name: "Burger Co", clientID: "c", sealedSecret: [1], posKeyHash: "p", at: now)
        var settings = business.settings
        settings.offerReminderLeadSeconds = 3600
        try store.updateSettings(businessID: business.id, settings)
        let ann = try store.createUser(
            NewUser(
                businessID: business.id, email: "ann@example.com", passwordHash: "x", firstName: "Ann", lastName: "L"),
            at: now)
        func grant(expiringIn seconds: Int64) throws {
            let offer = try store.createOffer(
                Offer(
                    id: 0, businessID: business.id, name: "Shake", description: "", imageURL: nil, media: nil,
                    discount: 2, availableFrom: nil, availableUntil: nil, expiresAt: nil, validForSeconds: seconds,
                    createdAt: now),
                at: now)
            _ = try store.grantOffer(
                businessID: business.id, offerID: offer.id, userIDs: [ann.id], source: "campaign_offer",
                event: .campaignOffer,
                drafter: try NotificationService(store: store, clock: clock, wake: {}).drafter(
                    for: try store.business(id: business.id)!),
                at: now)
        }
        func reminders() throws -> Int {
            try store.notifications(userID: ann.id, limit: 100, offset: 0).filter { $0.event == "offer_expiry" }.count
        }

        try grant(expiringIn: 600)
        #expect(scheduler.runOnce() == 1)
        #expect(scheduler.runOnce() == 0, "never twice in one run")

        // Restart: the reminder sent before is not sent again.
        (store, scheduler) = try node()
        #expect(scheduler.runOnce() == 0)
        #expect(try reminders() == 1)

        // A reward that came due while no node ran is reminded by the next one to start, once.
        try grant(expiringIn: 900)
        (store, scheduler) = try node()
        #expect(scheduler.runOnce() == 1)
        (store, scheduler) = try node()
        #expect(scheduler.runOnce() == 0)
        #expect(try reminders() == 2)
    }
}
