import HeraldSQLite
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

@Suite("Local change feed")
struct LocalChangeFeedTests {
    static let topic = ChangeTopic("delivery_queue")

    @Test func publishedChangesAreHeardAfterTheCommitOnly() throws {
        let directory = try TemporaryDirectory(prefix: "herald-feed")
        let database = try SQLiteDatabase(path: directory.file("test.db"))
        try database.write { db in try db.executeScript("CREATE TABLE jobs (id INTEGER)") }
        let feed = LocalChangeFeed()
        let heard = Mutex<[(payload: String, visible: Int64)]>([])
        let subscription = feed.subscribe(Self.topic) { event in
            // Called after the commit, with the writer free: the change is there to read, and a write may follow.
            let visible = (try? database.read { db in try db.scalar("SELECT COUNT(*) FROM jobs") }) ?? -1
            heard.withLock { $0.append((event.payload, visible)) }
        }
        try database.write { db in
            try db.execute("INSERT INTO jobs VALUES (1)")
            try feed.publish(Self.topic, payload: "1", in: db)
            #expect(heard.withLock { $0.isEmpty })
        }
        #expect(throws: StoreError.self) {
            try database.write { db in
                try db.execute("INSERT INTO jobs VALUES (2)")
                try feed.publish(Self.topic, payload: "rolled back", in: db)
                throw StoreError(.database, "no")
            }
        }
        feed.publish(Self.topic, payload: "now")
        #expect(heard.withLock { $0.map(\.payload) } == ["1", "now"])
        #expect(heard.withLock { $0.map(\.visible) } == [1, 1])
        subscription.cancel()
        feed.publish(Self.topic, payload: "after")
        #expect(heard.withLock { $0.count } == 2)
        // Another topic's subscribers hear nothing of this one.
        let other = Mutex(0)
        let otherSubscription = feed.subscribe(ChangeTopic("sessions")) { _ in other.withLock { $0 += 1 } }
        feed.publish(Self.topic, payload: "x")
        #expect(other.withLock { $0 } == 0)
        withExtendedLifetime(otherSubscription) {}
    }

    @Test func topicNamesAreChecked() {
        #expect(ChangeTopic.isValid("delivery_queue"))
        #expect(ChangeTopic.isValid("sessions.v2"))
        #expect(!ChangeTopic.isValid(""))
        #expect(!ChangeTopic.isValid("Upper"))
        #expect(!ChangeTopic.isValid("with space"))
        #expect(!ChangeTopic.isValid(String(repeating: "a", count: 49)))
    }
}
