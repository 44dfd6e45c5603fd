import HeraldPostgres
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

        // A commit on A (a logout, say) changes B's change count: what B cached is read again.
        let before = nodeB.changeCount
        try nodeA.transaction { _ in }
        #expect(eventually { nodeB.changeCount != before }, "B heard A's commit")
        #expect(woken.load(ordering: .relaxed) == 0, "a commit without new jobs does not wake the engine")

        // Jobs A makes due (here: queued ones retried now, none in this empty schema, so announced by hand in the
        // same way the store does) wake B's engine.
        try TestPostgres.database(schema: schema).write { db in
            try feedA.publish(ChangeTopic("commits"), payload: "jobs", in: db)
        }
        #expect(eventually { woken.load(ordering: .relaxed) > 0 }, "B's engine woke")
    }
}

/// Whether `condition` holds within five seconds (LISTEN/NOTIFY arrives on another connection's thread).
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}
