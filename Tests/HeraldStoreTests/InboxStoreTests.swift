import HeraldModel
import HeraldDomain
@_spi(NotificationWriter) import HeraldStore
import HeraldTesting
import HeraldTesting
import Testing

@Suite("Store conformance: inbox and badge")
struct InboxStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func entriesAreListedNewestFirstAndOnlyToTheirOwner(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let ann = fixture.user
        let bob = try fixture.addUser("bob@example.com")
        let entries = try fixture.publish((1...5).map { fixture.draft(ann, "message \($0)") }, at: at(1))
        #expect(entries.map(\.body) == (1...5).map { "message \($0)" })
        #expect(entries[0].extras == ["p": 12])

        let listed = try store.read { try $0.inbox.page(userID: ann.id, limit: 3, offset: 0) }
        #expect(listed.map(\.id) == entries.reversed().prefix(3).map(\.id))
        #expect(
            try store.read { try $0.inbox.page(userID: ann.id, limit: 10, offset: 3) }.map(\.id) == [
                entries[1].id, entries[0].id,
            ])
        #expect(try store.read { try $0.inbox.page(userID: bob.id, limit: 10, offset: 0) }.isEmpty)
        #expect(try store.read { try $0.inbox.find(userID: bob.id, id: entries[0].id) } == nil)
        #expect(try store.read { try $0.inbox.find(userID: ann.id, id: entries[0].id) } == entries[0])

        // Bob can neither delete nor read Ann's entries.
        #expect(try fixture.delete(bob.id, entries[0].id, at: at(2)) == false)
        #expect(try fixture.markRead(bob.id, [entries[0].id], at: at(2)) == ReadMarks(ids: [], changed: 0))
        #expect(try store.read { try $0.inbox.unreadCount(userID: ann.id) } == 5)

        #expect(
            try fixture.markRead(ann.id, [entries[1].id, entries[0].id, entries[1].id, 99999], at: at(3))
                == ReadMarks(ids: [entries[1].id, entries[0].id], changed: 2))
        #expect(
            try fixture.markRead(ann.id, [entries[0].id], event: .opened, at: at(4))
                == ReadMarks(ids: [entries[0].id], changed: 0), "already read: still the user's, recorded as opened")
        #expect(try store.read { try $0.inbox.eventCount(notificationID: entries[0].id, kind: .opened) } == 1)
        #expect(try store.read { try $0.inbox.eventCount(notificationID: entries[1].id, kind: .opened) } == 0)
        #expect(try store.read { try $0.inbox.find(userID: ann.id, id: entries[0].id) }?.readAt == at(3))
        #expect(try store.read { try $0.inbox.unreadCount(userID: ann.id) } == 3)

        #expect(try fixture.delete(ann.id, entries[4].id, at: at(5)))
        #expect(try fixture.delete(ann.id, entries[4].id, at: at(5)) == false)
        #expect(try store.read { try $0.inbox.find(userID: ann.id, id: entries[4].id) } == nil)
        #expect(try fixture.markRead(ann.id, [entries[4].id], at: at(6)) == ReadMarks(ids: [], changed: 0))
        #expect(try store.read { try $0.inbox.unreadCount(userID: ann.id) } == 2)
        #expect(
            try store.read { try $0.inbox.find(businessID: fixture.business.id, id: entries[4].id) }?.id
                == entries[4].id)
    }

    @Test(arguments: StoreBackend.allCases)
    func deviceEntriesAndTheirPushesAreWrittenManyAStatementEachWithItsOwnID(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        // 100 = 64 + 32 + 4 rows: three statements of three sizes.
        let devices = try (0..<100).map {
            try fixture.register(try fixture.addUser("u\($0)@example.com"), key: "d\($0)", token: "tok\($0)")
        }
        let drafts = devices.enumerated().map { index, device in
            var draft = fixture.draft(fixture.user, "for \(device.deviceKey)", visible: false)
            (draft.userID, draft.deviceID) = (device.userID, device.id)
            return (draft: draft, createdAt: at(Int64(index)))
        }
        let entries = try fixture.store.transaction { tx in
            let entries = try tx.inbox.insert(drafts)
            try tx.deliveries.enqueue(
                zip(entries, devices).map { (entry: $0, deviceID: $1.id, platform: .apns, dueAt: $0.createdAt) },
                at: at(200))
            return entries
        }
        #expect(entries.map(\.deviceID) == devices.map(\.id))
        #expect(Set(entries.map(\.id)).count == 100)
        for (entry, device) in zip(entries, devices) {
            let stored = try fixture.store.read { try $0.inbox.find(businessID: fixture.business.id, id: entry.id) }
            #expect(stored == entry, "entry of \(device.deviceKey) read back as written")
            #expect(stored?.body == "for \(device.deviceKey)")
            let jobs = try fixture.store.read { try $0.deliveries.all(notificationID: entry.id) }
            #expect(jobs.map(\.deviceID) == [device.id])
            #expect(jobs.first?.nextAttemptAt == entry.createdAt && jobs.first?.status == .queued)
        }
        let apnsIDs = try fixture.store.read { tx in
            try entries.flatMap { try tx.deliveries.all(notificationID: $0.id).map(\.apnsID) }
        }
        #expect(Set(apnsIDs).count == 100, "each push its own apns-id")
        let written = try fixture.store.read {
            try $0.inbox.page(businessID: fixture.business.id, userID: nil, limit: 1000, offset: 0)
        }
        #expect(written.count == 100, "each entry written once")
        // Two entries for one device in one call are refused, not mixed up.
        #expect(throws: StoreError.self) {
            try fixture.store.transaction { try $0.inbox.insert([drafts[0], drafts[0]]) }
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func theInboxVersionChangesWithEveryChange(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let bob = try fixture.addUser("bob@example.com")
        func version() throws -> Int64 {
            try store.read { try $0.users.find(businessID: fixture.business.id, id: fixture.user.id) }!.inboxVersion
        }
        let start = try version()
        let entry = try fixture.publish([fixture.draft(fixture.user)], at: at(1))[0]
        let afterCreate = try version()
        #expect(afterCreate > start)
        _ = try fixture.publish([fixture.draft(fixture.user, style: .background, visible: false)], at: at(1))
        #expect(try version() == afterCreate, "a push-only entry is not in the inbox")
        _ = try fixture.markRead(bob.id, [entry.id], at: at(2))
        _ = try fixture.delete(bob.id, entry.id, at: at(2))
        #expect(try version() == afterCreate, "someone else's attempts change nothing")
        _ = try fixture.markRead(fixture.user.id, [entry.id], at: at(2))
        let afterRead = try version()
        #expect(afterRead > afterCreate)
        _ = try fixture.markRead(fixture.user.id, [entry.id], at: at(3))
        #expect(try version() == afterRead, "reading twice is no change")
        #expect(try fixture.delete(fixture.user.id, entry.id, at: at(4)))
        #expect(try version() > afterRead)
    }

    @Test(arguments: StoreBackend.allCases)
    func hiddenEntriesNeitherListNorCount(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let silent = try fixture.publish(
            [fixture.draft(fixture.user, style: .background, visible: false)], at: at(1))[0]
        #expect(try store.read { try $0.inbox.page(userID: fixture.user.id, limit: 10, offset: 0) }.isEmpty)
        #expect(try store.read { try $0.inbox.unreadCount(userID: fixture.user.id) } == 0)
        #expect(try store.read { try $0.inbox.find(userID: fixture.user.id, id: silent.id) } == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsAreRecordedForTheOwnerOnly(_ backend: StoreBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let bob = try fixture.addUser("bob@example.com")
        let entry = try fixture.publish([fixture.draft(fixture.user)], at: at(1))[0]
        #expect(try fixture.recordEvent(fixture.user.id, entry.id, .opened, at: at(2)))
        #expect(try fixture.recordEvent(bob.id, entry.id, .opened, at: at(2)) == false)
        #expect(try store.read { try $0.inbox.eventCount(notificationID: entry.id, kind: .opened) } == 1)
        #expect(try store.read { try $0.inbox.eventCount(notificationID: entry.id, kind: .dismissed) } == 0)
    }

    /// Random notify / read / delete sequences: the badge always equals the unread entries a model keeps.
    @Test(arguments: StoreBackend.allCases)
    func badgeNeverDrifts(_ backend: StoreBackend) throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<8 {
            let fixture = try StoreFixture(backend)
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
                    let made = try fixture.publish(
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
                    #expect(try fixture.markRead(user.id, ids, at: at(Int64(step))).changed == expected)
                    unread[user.id, default: []].subtract(ids)
                case 7..<9:
                    guard let id = live[user.id]?.randomElement(using: &generator) else { continue }
                    #expect(try fixture.delete(user.id, id, at: at(Int64(step))))
                    live[user.id]!.remove(id)
                    unread[user.id, default: []].remove(id)
                default:
                    // Someone else's entry: nothing may change.
                    let other = users.first { $0.id != user.id }!
                    guard let id = live[other.id]?.first else { continue }
                    #expect(try fixture.markRead(user.id, [id], at: at(Int64(step))).changed == 0)
                    #expect(try fixture.delete(user.id, id, at: at(Int64(step))) == false)
                }
                for check in users {
                    let badge = try store.read { try $0.inbox.unreadCount(userID: check.id) }
                    #expect(badge == (unread[check.id]?.count ?? 0), "round \(round) step \(step)")
                    let listed = try store.read { try $0.inbox.page(userID: check.id, limit: 1000, offset: 0) }
                    #expect(listed.filter { $0.readAt == nil }.count == badge)
                }
            }
        }
    }
}

/// What marking read did: the ids that are the user's visible entries, and how many were unread until then.
struct ReadMarks: Equatable {
    var ids: [Int64]
    var changed: Int
}

extension StoreFixture {
    func markRead(_ userID: Int64, _ ids: [Int64], event: NotificationEventKind? = nil, at time: Timestamp) throws
        -> ReadMarks
    {
        clock.set(time)
        let before = try store.read { try $0.inbox.unreadCount(userID: userID) }
        let marks = try inbox.markRead(userID: userID, entries: ids, rewards: [], event: event)
        return ReadMarks(ids: marks.entries, changed: before - marks.badge)
    }

    func delete(_ userID: Int64, _ id: Int64, at time: Timestamp) throws -> Bool {
        clock.set(time)
        return try inbox.delete(userID: userID, id: id)
    }

    func recordEvent(_ userID: Int64, _ id: Int64, _ kind: NotificationEventKind, at time: Timestamp) throws -> Bool {
        clock.set(time)
        return try inbox.recordEvent(userID: userID, notificationID: id, kind: kind)
    }
}
