import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Store conformance: inbox and badge")
struct InboxStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func entriesAreListedNewestFirstAndOnlyToTheirOwner(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let ann = fixture.user
        let bob = try fixture.addUser("bob@example.com")
        let entries = try store.createNotifications((1...5).map { fixture.draft(ann, "message \($0)") }, at: at(1))
        #expect(entries.map(\.body) == (1...5).map { "message \($0)" })
        #expect(entries[0].extras == ["p": 12])

        let listed = try store.notifications(userID: ann.id, limit: 3, offset: 0)
        #expect(listed.map(\.id) == entries.reversed().prefix(3).map(\.id))
        #expect(
            try store.notifications(userID: ann.id, limit: 10, offset: 3).map(\.id) == [entries[1].id, entries[0].id])
        #expect(try store.notifications(userID: bob.id, limit: 10, offset: 0).isEmpty)
        #expect(try store.notification(userID: bob.id, id: entries[0].id) == nil)
        #expect(try store.notification(userID: ann.id, id: entries[0].id) == entries[0])

        // Bob can neither delete nor read Ann's entries.
        #expect(try store.deleteNotification(userID: bob.id, id: entries[0].id, at: at(2)) == false)
        #expect(try store.markRead(userID: bob.id, ids: [entries[0].id], at: at(2)) == ReadMarks(ids: [], changed: 0))
        #expect(try store.unreadCount(userID: ann.id) == 5)

        #expect(
            try store.markRead(userID: ann.id, ids: [entries[1].id, entries[0].id, entries[1].id, 99999], at: at(3))
                == ReadMarks(ids: [entries[1].id, entries[0].id], changed: 2))
        #expect(
            try store.markRead(userID: ann.id, ids: [entries[0].id], event: .opened, at: at(4))
                == ReadMarks(ids: [entries[0].id], changed: 0), "already read: still the user's, recorded as opened")
        #expect(try store.eventCount(notificationID: entries[0].id, kind: .opened) == 1)
        #expect(try store.eventCount(notificationID: entries[1].id, kind: .opened) == 0)
        #expect(try store.notification(userID: ann.id, id: entries[0].id)?.readAt == at(3))
        #expect(try store.unreadCount(userID: ann.id) == 3)

        #expect(try store.deleteNotification(userID: ann.id, id: entries[4].id, at: at(5)))
        #expect(try store.deleteNotification(userID: ann.id, id: entries[4].id, at: at(5)) == false)
        #expect(try store.notification(userID: ann.id, id: entries[4].id) == nil)
        #expect(try store.markRead(userID: ann.id, ids: [entries[4].id], at: at(6)) == ReadMarks(ids: [], changed: 0))
        #expect(try store.unreadCount(userID: ann.id) == 2)
        #expect(try store.notification(businessID: fixture.business.id, id: entries[4].id)?.id == entries[4].id)
    }

    @Test(arguments: StoreBackend.allCases)
    func theInboxVersionChangesWithEveryChange(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let bob = try fixture.addUser("bob@example.com")
        func version() throws -> Int64 {
            try store.user(businessID: fixture.business.id, id: fixture.user.id)!.inboxVersion
        }
        let start = try version()
        let entry = try store.createNotifications([fixture.draft(fixture.user)], at: at(1))[0]
        let afterCreate = try version()
        #expect(afterCreate > start)
        _ = try store.createNotifications([fixture.draft(fixture.user, style: .background, visible: false)], at: at(1))
        #expect(try version() == afterCreate, "a push-only entry is not in the inbox")
        _ = try store.markRead(userID: bob.id, ids: [entry.id], at: at(2))
        _ = try store.deleteNotification(userID: bob.id, id: entry.id, at: at(2))
        #expect(try version() == afterCreate, "someone else's attempts change nothing")
        _ = try store.markRead(userID: fixture.user.id, ids: [entry.id], at: at(2))
        let afterRead = try version()
        #expect(afterRead > afterCreate)
        _ = try store.markRead(userID: fixture.user.id, ids: [entry.id], at: at(3))
        #expect(try version() == afterRead, "reading twice is no change")
        #expect(try store.deleteNotification(userID: fixture.user.id, id: entry.id, at: at(4)))
        #expect(try version() > afterRead)
    }

    @Test(arguments: StoreBackend.allCases)
    func hiddenEntriesNeitherListNorCount(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let silent = try store.createNotifications(
            [fixture.draft(fixture.user, style: .background, visible: false)], at: at(1))[0]
        #expect(try store.notifications(userID: fixture.user.id, limit: 10, offset: 0).isEmpty)
        #expect(try store.unreadCount(userID: fixture.user.id) == 0)
        #expect(try store.notification(userID: fixture.user.id, id: silent.id) == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsAreRecordedForTheOwnerOnly(_ backend: StoreBackend) throws {
        let fixture = try Fixture(backend)
        let store = fixture.store
        let bob = try fixture.addUser("bob@example.com")
        let entry = try store.createNotifications([fixture.draft(fixture.user)], at: at(1))[0]
        #expect(try store.recordEvent(userID: fixture.user.id, notificationID: entry.id, kind: .opened, at: at(2)))
        #expect(try store.recordEvent(userID: bob.id, notificationID: entry.id, kind: .opened, at: at(2)) == false)
        #expect(try store.eventCount(notificationID: entry.id, kind: .opened) == 1)
        #expect(try store.eventCount(notificationID: entry.id, kind: .dismissed) == 0)
    }

    /// Random notify / read / delete sequences: the badge always equals the unread entries a model keeps.
    @Test(arguments: StoreBackend.allCases)
    func badgeNeverDrifts(_ backend: StoreBackend) throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<8 {
            let fixture = try Fixture(backend)
            let store = fixture.store
            let users = [fixture.user, try fixture.addUser("u2@example.com"), try fixture.addUser("u3@example.com")]
            var unread: [Int64: Set<Int64>] = [:]
            var live: [Int64: Set<Int64>] = [:]
            for step in 0..<120 {
                let user = users[Int.random(in: 0..<users.count, using: &generator)]
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<4:
                    let count = Int.random(in: 1...3, using: &generator)
                    let visible = Int.random(in: 0..<5, using: &generator) > 0
                    let made = try store.createNotifications(
                        (0..<count).map { _ in
                            fixture.draft(user, style: visible ? .alert : .background, visible: visible)
                        },
                        at: at(Int64(step)))
                    if visible {
                        unread[user.id, default: []].formUnion(made.map(\.id))
                        live[user.id, default: []].formUnion(made.map(\.id))
                    }
                case 4..<7:
                    let pool = Array(live[user.id] ?? []) + [99_999]
                    let ids = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                        pool[Int.random(in: 0..<pool.count, using: &generator)]
                    }
                    let expected = Set(ids).intersection(unread[user.id] ?? []).count
                    #expect(try store.markRead(userID: user.id, ids: ids, at: at(Int64(step))).changed == expected)
                    unread[user.id, default: []].subtract(ids)
                case 7..<9:
                    guard let id = live[user.id]?.randomElement(using: &generator) else { continue }
                    #expect(try store.deleteNotification(userID: user.id, id: id, at: at(Int64(step))))
                    live[user.id]!.remove(id)
                    unread[user.id, default: []].remove(id)
                default:
                    // Someone else's entry: nothing may change.
                    let other = users.first { $0.id != user.id }!
                    guard let id = live[other.id]?.first else { continue }
                    #expect(try store.markRead(userID: user.id, ids: [id], at: at(Int64(step))).changed == 0)
                    #expect(try store.deleteNotification(userID: user.id, id: id, at: at(Int64(step))) == false)
                }
                for check in users {
                    let badge = try store.unreadCount(userID: check.id)
                    #expect(badge == (unread[check.id]?.count ?? 0), "round \(round) step \(step)")
                    let listed = try store.notifications(userID: check.id, limit: 1000, offset: 0)
                    #expect(listed.filter { $0.readAt == nil }.count == badge)
                }
            }
        }
    }
}
