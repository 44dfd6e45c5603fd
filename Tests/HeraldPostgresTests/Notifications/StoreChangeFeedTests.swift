import HeraldDomain
import HeraldPostgres
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Foundation
import Synchronization
import Testing

/// Two nodes' stores on one PostgreSQL database, each with its own LISTEN connection: what one commits reaches the
/// other's caches and delivery engine.
@Suite("PostgreSQL: commits reach every node", postgresTests, .serialized)
struct StoreChangeFeedTests {
    @Test func aCommitOnOneNodeEmptiesTheOthersCachesAndNewJobsWakeItsEngine() throws {
        let schema = try TestPostgres.makeSchema()
        let url = try TestPostgres.requireURL()
        let feedA = try PostgresChangeFeed(url: url)
        let feedB = try PostgresChangeFeed(url: url)
        feedA.notifications.start()
        feedB.notifications.start()
        defer {
            feedA.notifications.stop()
            feedB.notifications.stop()
        }
        let nodeA = try Store(database: try TestPostgres.database(schema: schema), feed: feedA)
        let nodeB = try Store(database: try TestPostgres.database(schema: schema), feed: feedB)
        let woken = Atomic<Int>(0)
        nodeB.deliveryQueue.onJobsAdded { woken.add(1, ordering: .relaxed) }

        // A commit on A (a logout, say) changes B's change count: what B cached is read again (LISTEN/NOTIFY arrives
        // on B's listener thread).
        let before = nodeB.changeCount
        try nodeA.transaction { _ in }
        #expect(Poll.until(timeout: .seconds(5)) { nodeB.changeCount != before }, "B heard A's commit")
        #expect(woken.load(ordering: .relaxed) == 0, "a commit without new jobs does not wake the engine")

        // A news push A publishes (an inbox entry and its delivery job, through the one publishing path) wakes B's
        // engine.
        let world = try StoreFixture(.postgres)
        try world.register(world.user, key: "phone", token: String(repeating: "ab", count: 32))
        let publisher = try Store(database: try TestPostgres.database(schema: world.path), feed: feedA)
        let subscriber = try Store(database: try TestPostgres.database(schema: world.path), feed: feedB)
        let jobs = Atomic<Int>(0)
        subscriber.deliveryQueue.onJobsAdded { jobs.add(1, ordering: .relaxed) }
        let now = world.clock.now
        let entry = try publisher.transaction { tx in
            try world.notifications.publish(world.draft(world.user), in: tx, at: now)
        }
        #expect(try subscriber.read { try $0.deliveries.all(notificationID: entry.id) }.count == 1)
        #expect(
            Poll.until(timeout: .seconds(5)) { jobs.load(ordering: .relaxed) > 0 }, "B's engine woke for A's new job")
    }
}
