import HeraldPostgres
import HeraldStore
import HeraldTesting
import Testing

@Suite("PostgreSQL change feed", postgresTests)
struct PostgresChangeFeedTests {
    @Test func aChangeOnOneNodeWakesTheOther() throws {
        let schema = try TestPostgres.makeSchema()
        let url = try TestPostgres.requireURL()
        let writer = try TestPostgres.database(schema: schema)
        let reader = try TestPostgres.database(schema: schema)
        try writer.write { db in try db.executeScript("CREATE TABLE queue (id BIGINT)") }
        let publisher = try PostgresChangeFeed(url: url)
        let subscriber = try PostgresChangeFeed(url: url)
        subscriber.notifications.start()
        defer { subscriber.notifications.stop() }
        // A topic of this test's own: channels are shared by every test on the database.
        let topic = ChangeTopic("queue_" + schema)
        let seen = Recorder<Int64>()
        let events = Recorder<ChangeEvent>()
        let subscription = try subscriber.subscribe(topic) { event in
            // Heard after the commit: what the writer wrote is there to read.
            seen.record((try? reader.read { db in try db.scalar("SELECT COUNT(*) FROM queue") }) ?? -1)
            events.record(event)
        }
        try writer.write { db in
            try db.execute("INSERT INTO queue VALUES (1)")
            try publisher.publish(topic, payload: "1", in: db)
        }
        #expect(events.wait { $0 == [ChangeEvent(topic: topic, payload: "1")] })
        #expect(seen.all == [1])
        withExtendedLifetime(subscription) {}
    }
}
