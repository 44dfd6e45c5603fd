import Foundation
import HeraldLifecycle
@testable import HeraldPostgres
import HeraldStore
import HeraldTesting
import Testing

@Suite("PostgreSQL LISTEN/NOTIFY", postgresTests)
struct PostgresNotificationsTests {
    /// A channel no other test uses (every test shares one database, and channels are database-wide).
    static func channel() -> String { "test." + UUID().uuidString.lowercased() }

    /// A node: its own database (pool) and its own listener, named so that a test can find its session.
    struct Node {
        let database: PostgresDatabase
        let notifications: PostgresNotifications
        let name: String

        init(schema: String) throws {
            name = "listener-" + UUID().uuidString.prefix(8).lowercased()
            database = try TestPostgres.database(schema: schema, options: .init(poolSize: 2))
            var options = PostgresNotifications.Options(reconnectDelay: .milliseconds(50))
            options.parameters["application_name"] = name
            notifications = try PostgresNotifications(url: try TestPostgres.requireURL(), options: options)
        }
    }

    static func nodes() throws -> (Node, Node) {
        let schema = try TestPostgres.makeSchema()
        return (try Node(schema: schema), try Node(schema: schema))
    }

    @Test func aNotificationCommittedOnOneNodeIsHeardOnBoth() throws {
        let (a, b) = try Self.nodes()
        a.notifications.start()
        b.notifications.start()
        defer {
            a.notifications.stop()
            b.notifications.stop()
        }
        let channel = Self.channel()
        let heardOnA = Recorder<PostgresNotification>()
        let heardOnB = Recorder<PostgresNotification>()
        let subscriptions = [
            try a.notifications.listen(channel, heardOnA.record), try b.notifications.listen(channel, heardOnB.record),
        ]
        try a.database.write { db in
            try PostgresNotifications.notify(channel: channel, payload: "user 42 — ünïcode", on: db)
        }
        let expected = PostgresNotification(channel: channel, payload: "user 42 — ünïcode")
        #expect(heardOnB.wait { $0 == [expected] })
        #expect(heardOnA.wait { $0 == [expected] })
        withExtendedLifetime(subscriptions) {}
    }

    /// Notifications are delivered in commit order: once the marker sent after the rolled-back one arrives, the
    /// rolled-back one would have arrived before it if it were going to.
    @Test func aRolledBackNotificationIsNeverHeard() throws {
        let (a, b) = try Self.nodes()
        b.notifications.start()
        defer { b.notifications.stop() }
        let channel = Self.channel()
        let heard = Recorder<String>()
        let subscription = try b.notifications.listen(channel) { heard.record($0.payload) }
        #expect(throws: StoreError.self) {
            try a.database.write { db in
                try PostgresNotifications.notify(channel: channel, payload: "rolled back", on: db)
                throw StoreError(.database, "changed my mind")
            }
        }
        try a.database.write { db in
            try PostgresNotifications.notify(channel: channel, payload: "first", on: db)
            try PostgresNotifications.notify(channel: channel, payload: "second", on: db)
        }
        #expect(heard.wait { $0.contains("second") })
        #expect(heard.all == ["first", "second"])
        withExtendedLifetime(subscription) {}
    }

    @Test func aLostListenerReconnectsAndSaysItMayHaveMissedSome() throws {
        let (a, b) = try Self.nodes()
        b.notifications.start()
        defer { b.notifications.stop() }
        let channel = Self.channel()
        let heard = Recorder<PostgresNotification>()
        let subscription = try b.notifications.listen(channel, heard.record)
        #expect(b.notifications.connectionCount == 1)
        let pid = try a.database.read { db in
            try db.scalar("SELECT pid FROM pg_stat_activity WHERE application_name = \(b.name)")
        }
        #expect(pid != 0)
        #expect(
            try a.database.read { db in try db.row("SELECT pg_terminate_backend(\(pid)::int, 30000)")?.bool(0) } == true
        )
        #expect(heard.wait { $0.contains { $0.mayHaveMissed } })
        #expect(b.notifications.connectionCount == 2)
        try a.database.write { db in try PostgresNotifications.notify(channel: channel, payload: "after", on: db) }
        #expect(heard.wait { $0.contains { $0.payload == "after" } })
        #expect(heard.all.filter(\.mayHaveMissed).count == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test func listenersBeforeTheStartHearTheyMayHaveMissedSome() throws {
        let (a, b) = try Self.nodes()
        let channel = Self.channel()
        let heard = Recorder<PostgresNotification>()
        let subscription = try b.notifications.listen(channel, heard.record)
        b.notifications.start()
        defer { b.notifications.stop() }
        #expect(heard.wait { $0 == [PostgresNotification(channel: channel, payload: "", mayHaveMissed: true)] })
        try a.database.write { db in try PostgresNotifications.notify(channel: channel, payload: "now", on: db) }
        #expect(heard.wait { $0.count == 2 })
        #expect(heard.all.last?.payload == "now")
        withExtendedLifetime(subscription) {}
    }

    @Test func aCancelledListenerHearsNoMore() throws {
        let (a, b) = try Self.nodes()
        b.notifications.start()
        defer { b.notifications.stop() }
        let channel = Self.channel()
        let cancelled = Recorder<String>()
        let kept = Recorder<String>()
        let subscription = try b.notifications.listen(channel) { cancelled.record($0.payload) }
        let other = try b.notifications.listen(channel) { kept.record($0.payload) }
        try a.database.write { db in try PostgresNotifications.notify(channel: channel, payload: "1", on: db) }
        #expect(cancelled.wait { $0 == ["1"] })
        subscription.cancel()
        try a.database.write { db in try PostgresNotifications.notify(channel: channel, payload: "2", on: db) }
        #expect(kept.wait { $0 == ["1", "2"] })
        #expect(cancelled.all == ["1"])
        withExtendedLifetime(other) {}
    }

    @Test func asAServiceItListensWhileItsGroupRunsAndClosesItsConnectionWhenItStops() async throws {
        let (a, b) = try Self.nodes()
        let channel = Self.channel()
        let heard = Recorder<PostgresNotification>()
        let subscription = try b.notifications.listen(channel, heard.record)
        func sessions() throws -> Int64 {
            try a.database.read { db in
                try db.scalar("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = \(b.name)")
            }
        }
        #expect(try sessions() == 0, "nothing listens before the group runs it")
        let group = WorkerGroup([("changes", b.notifications)], logger: .disabled)
        let running = group.start()
        // Listening from the group's start: it says so with a missed-notifications word, then hears what comes.
        #expect(heard.wait { $0 == [PostgresNotification(channel: channel, payload: "", mayHaveMissed: true)] })
        try a.database.write { db in try PostgresNotifications.notify(channel: channel, payload: "now", on: db) }
        #expect(heard.wait { $0.last?.payload == "now" })
        group.stop()
        try await running.value
        #expect(await Poll.eventually { (try? sessions()) == 0 }, "its connection was closed")
        withExtendedLifetime(subscription) {}
    }

    @Test func channelNamesAreChecked() throws {
        let notifications = try PostgresNotifications(url: try TestPostgres.requireURL())
        #expect(throws: StoreError.self) { _ = try notifications.listen("", { _ in }) }
        #expect(throws: StoreError.self) { _ = try notifications.listen(String(repeating: "x", count: 64), { _ in }) }
        // Quotes in a name are part of it.
        #expect(PostgresNotifications.quoted("a\"b") == "\"a\"\"b\"")
    }
}
