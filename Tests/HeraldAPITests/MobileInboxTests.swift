import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The mobile API's inbox: `GET /notifications`, `DELETE /notifications/{id}`, `PUT /offers/mark_read` and the badge.
@Suite("Mobile API: inbox")
struct MobileInboxTests {
    /// A user with the sign-up welcome plus `news` news items (titles "News 1"…), and the ids newest first.
    private func userWithNews(_ fixture: ServerFixture, _ email: String = "ann@example.com", news: Int) throws
        -> (app: MobileTestClient, ids: [Int64])
    {
        let app = try fixture.signedUp(email)
        if news > 0 { try fixture.news(to: app.userID!, count: news) }
        let ids = try app.entries().compactMap { $0["id"]?.int64Value }
        try #require(ids.count == news + 1)
        return (app, ids)
    }

    private func ids(_ response: TestHTTPClient.Response) -> [Int64]? {
        response.value?.arrayValue?.compactMap { $0["id"]?.int64Value }
    }

    // MARK: - Listing

    @Test func theInboxListsNewestFirstWithPunchhFields() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let sent = try fixture.news(to: app.userID!, count: 3)
        let response = try app.inbox()
        #expect(response.status == 200, "\(response)")
        #expect(response.isJSON)
        let entries = try #require(response.value?.arrayValue)
        #expect(entries.count == 4)
        #expect(Array(entries.compactMap { $0["id"]?.int64Value }.prefix(3)) == Array(sent.reversed()))
        #expect(
            entries.compactMap { $0["title"]?.stringValue } == ["News 3", "News 2", "News 1", "Welcome to Burger Co"])
        let ids = entries.compactMap { $0["id"]?.int64Value }
        #expect(ids == ids.sorted(by: >))

        let newest = entries[0]
        #expect(newest["kind"] == "news")
        #expect(newest["event"] == "news")
        #expect(newest["message"] == "Item 3")
        #expect(newest["subtitle"] == .null)
        #expect(newest["media"] == .null)
        #expect(newest["read_at"] == .null)
        #expect(newest["created_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
        #expect(newest["payload"]?["u"] == .int(app.userID!))

        let welcome = entries[3]
        #expect(welcome["kind"] == "system")
        #expect(welcome["event"] == "signup")
        #expect(welcome["message"] == "Hi Ann, welcome to Burger Co!")
    }

    @Test func anUnchangedInboxAnswers304UntilSomethingChanges() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 2)
        let target = "/api2/mobile/notifications?client=\(fixture.business.client)"
        let first = try app.call("GET", target)
        #expect(first.status == 200)
        #expect(first.header("cache-control") == "private, no-cache")
        let etag = try #require(first.header("etag"))

        let unchanged = try app.call("GET", target, headers: [("If-None-Match", etag)])
        #expect(unchanged.status == 304, "\(unchanged)")
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.header("etag") == etag)
        // A 304's Content-Length, if any, is that of the 200 it stands for (RFC 9110 §8.6), never 0.
        #expect(unchanged.header("content-length") == String(first.body.count))
        // The connection goes on: nothing followed the 304's header.
        #expect(try app.call("GET", target).status == 200)

        #expect(try app.markRead(.string("\(all[0])")).status == 200)
        let changed = try app.call("GET", target, headers: [("If-None-Match", etag)])
        #expect(changed.status == 200)
        #expect(changed.header("etag") != etag)
        #expect(changed.value?.arrayValue?.first?["read_at"]?.stringValue != nil)
    }

    @Test func quantityDefaultsToTen() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 11)
        let response = try app.call("GET", "/api2/mobile/notifications?client=\(fixture.business.client)")
        #expect(response.status == 200)
        #expect(ids(response) == Array(all.prefix(10)))
    }

    @Test func quantityAndPageSelectASlice() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 11)  // 12 entries
        #expect(ids(try app.inbox("qty=1")) == [all[0]])
        #expect(ids(try app.inbox("qty=5&page=1")) == Array(all[0..<5]))
        #expect(ids(try app.inbox("qty=5&page=2")) == Array(all[5..<10]))
        #expect(ids(try app.inbox("qty=5&page=3")) == Array(all[10..<12]))
        #expect(ids(try app.inbox("qty=5&page=4")) == [])
        #expect(ids(try app.inbox("qty=100")) == all)
        // Numbers in a JSON body (even as strings) work as well as in the query.
        #expect(
            ids(try app.call("GET", "/api2/mobile/notifications", json: [("qty", "2"), ("page", 2)]))
                == Array(all[2..<4]))
    }

    @Test(arguments: ["qty=0", "qty=101", "qty=-1", "qty=abc", "qty=", "qty=1.5", "qty=99999999999999999999"])
    func quantityOutOfBoundsIs422(_ query: String) throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        expectError(try app.inbox(query), 422, ["qty"])
    }

    @Test(arguments: ["page=0", "page=-3", "page=two", "page=100001"])
    func aBadPageIs422(_ query: String) throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        expectError(try app.inbox(query), 422, ["page"])
    }

    @Test func usersSeeOnlyTheirOwnEntries() throws {
        let fixture = try ServerFixture()
        let (ann, annIDs) = try userWithNews(fixture, news: 2)
        let (bob, bobIDs) = try userWithNews(fixture, "bob@example.com", news: 1)
        #expect(Set(annIDs).isDisjoint(with: bobIDs))
        #expect(ids(try ann.inbox()) == annIDs)
        #expect(ids(try bob.inbox()) == bobIDs)
    }

    // MARK: - Delete

    @Test func deletingAnOwnEntryRemovesIt() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 2)
        let response = try app.call("DELETE", "/api2/mobile/notifications/\(all[1])", json: [])
        #expect(response.status == 200, "\(response)")
        #expect(response.isJSON)
        #expect(ids(try app.inbox()) == [all[0], all[2]])
        // The badge no longer counts it.
        #expect(try app.markRead([]).value?["badge"] == .int(2))
        // A second delete finds nothing.
        expectError(try app.call("DELETE", "/api2/mobile/notifications/\(all[1])", json: []), 404, ["base"])
    }

    @Test func deletingAnotherUsersEntryIs404AndLeavesIt() throws {
        let fixture = try ServerFixture()
        let (ann, annIDs) = try userWithNews(fixture, news: 1)
        let (bob, _) = try userWithNews(fixture, "bob@example.com", news: 0)
        expectError(try bob.call("DELETE", "/api2/mobile/notifications/\(annIDs[0])", json: []), 404, ["base"])
        #expect(ids(try ann.inbox()) == annIDs)
    }

    @Test(arguments: ["abc", "-1", "0", "1.0", "99999999999999999999", "%20", "1%3B%20DROP%20TABLE%20notifications"])
    func deletingANonexistentIDIs404(_ id: String) throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 1)
        expectError(try app.call("DELETE", "/api2/mobile/notifications/\(id)", json: []), 404, ["base"])
        #expect(ids(try app.inbox()) == all)
    }

    @Test func deleteWorksWithTheClientInTheQuery() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 1)
        let response = try app.call("DELETE", "/api2/mobile/notifications/\(all[0])?client=\(fixture.business.client)")
        #expect(response.status == 200, "\(response)")
        #expect(ids(try app.inbox()) == [all[1]])
    }

    // MARK: - Mark read

    @Test func markReadThroughAppMarksAndAnswersTheBadge() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 3)  // 4 unread
        let response = try app.markRead(.string("\(all[0]),\(all[2])"))
        #expect(response.status == 200, "\(response)")
        #expect(
            response.value?["user_notifications"]?.arrayValue?.compactMap(\.int64Value).sorted()
                == [all[2], all[0]].sorted())
        #expect(response.value?["rewards"] == [])
        #expect(response.value?["badge"] == .int(2))

        let entries = try app.entries()
        let read = entries.filter { $0["read_at"]?.stringValue != nil }.compactMap { $0["id"]?.int64Value }
        #expect(Set(read) == [all[0], all[2]])
        for id in all {
            #expect(try fixture.store.read { try $0.inbox.eventCount(notificationID: id, kind: .opened) } == 0)
        }
    }

    @Test func markReadAcceptsIDsInEveryForm() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 5)  // 6 unread
        #expect(try app.markRead(.array([.int(all[0])])).value?["badge"] == .int(5))
        #expect(try app.markRead(.array([.string("\(all[1])"), .string("\(all[2])")])).value?["badge"] == .int(3))
        #expect(try app.markRead(.int(all[3])).value?["badge"] == .int(2))
        #expect(try app.markRead(.string(" \(all[4]) , ,")).value?["badge"] == .int(1))
        // Marking again changes nothing.
        #expect(try app.markRead(.string("\(all[0])")).value?["badge"] == .int(1))
        // In the query, as a form-encoded value.
        let query = try app.call(
            "PUT",
            "/api2/mobile/offers/mark_read?client=\(fixture.business.client)&event_type=read_through_app&user_notifications=\(all[5])"
        )
        #expect(query.status == 200, "\(query)")
        #expect(query.value?["badge"] == .int(0))
    }

    @Test func markReadWithoutIDsJustAnswersTheBadge() throws {
        let fixture = try ServerFixture()
        let (app, _) = try userWithNews(fixture, news: 2)
        let response = try app.call("PUT", "/api2/mobile/offers/mark_read", json: [("event_type", "read_through_app")])
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["badge"] == .int(3))
        #expect(response.value?["user_notifications"] == [])
    }

    @Test func appOpenViaPushMarksReadAndRecordsAnOpen() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 2)
        let response = try app.markRead(.string("\(all[0])"), eventType: "app_open_via_push")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["user_notifications"] == [.int(all[0])])
        #expect(response.value?["badge"] == .int(2))
        #expect(try fixture.store.read { try $0.inbox.eventCount(notificationID: all[0], kind: .opened) } == 1)
        #expect(try fixture.store.read { try $0.inbox.eventCount(notificationID: all[1], kind: .opened) } == 0)
        #expect(try app.entries().first { $0["id"] == .int(all[0]) }?["read_at"]?.stringValue != nil)
    }

    @Test func foreignIDsAreIgnored() throws {
        let fixture = try ServerFixture()
        let (ann, annIDs) = try userWithNews(fixture, news: 1)
        let (bob, bobIDs) = try userWithNews(fixture, "bob@example.com", news: 1)
        let response = try bob.markRead(
            .array((annIDs + [bobIDs[0], 999_999]).map { .int($0) }), eventType: "app_open_via_push")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["user_notifications"] == [.int(bobIDs[0])])
        #expect(response.value?["badge"] == .int(1))
        // Ann's entries stay unread and unopened.
        #expect(try ann.entries().allSatisfy { $0["read_at"] == .null })
        for id in annIDs {
            #expect(try fixture.store.read { try $0.inbox.eventCount(notificationID: id, kind: .opened) } == 0)
        }
        #expect(try ann.markRead([]).value?["badge"] == .int(2))
    }

    @Test func deletedEntriesAreNotMarked() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 1)
        #expect(try app.call("DELETE", "/api2/mobile/notifications/\(all[0])", json: []).status == 200)
        let response = try app.markRead(.string("\(all[0])"), eventType: "app_open_via_push")
        #expect(response.value?["user_notifications"] == [])
        #expect(response.value?["badge"] == .int(1))
    }

    @Test func theBadgeIsTheUnreadCount() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 4)
        var unread = Set(all)
        for id in [all[3], all[1]] {
            unread.remove(id)
            let badge = try app.markRead(.string("\(id)")).value?["badge"]
            #expect(badge == .int(Int64(unread.count)))
            #expect(try fixture.store.read { try $0.inbox.unreadCount(userID: app.userID!) } == unread.count)
            let listed = try app.entries().filter { $0["read_at"] == .null }.count
            #expect(listed == unread.count)
        }
        // New news raises it again.
        try fixture.news(to: app.userID!, count: 1)
        #expect(try app.markRead([]).value?["badge"] == .int(Int64(unread.count + 1)))
    }

    @Test(arguments: ["clicked", "READ_THROUGH_APP", "", "app_open_via_push "])
    func anInvalidEventTypeIs422(_ eventType: String) throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 0)
        expectError(try app.markRead(.string("\(all[0])"), eventType: .string(eventType)), 422, ["event_type"])
        #expect(try app.entries().allSatisfy { $0["read_at"] == .null })
    }

    static let malformedIDs: [JSON] = [
        .string("1,x"), .string("1;2"), .array([.string("a")]), .array([.double(1.5)]), .bool(true),
        .object([("id", .int(1))]),
    ]

    @Test(arguments: malformedIDs)
    func malformedIDsAre422(_ ids: JSON) throws {
        let fixture = try ServerFixture()
        let (app, _) = try userWithNews(fixture, news: 0)
        expectError(try app.markRead(ids), 422, ["user_notifications"])
        #expect(try app.entries().allSatisfy { $0["read_at"] == .null })
    }

    @Test func moreThanAThousandIDsAre422() throws {
        let fixture = try ServerFixture()
        let (app, _) = try userWithNews(fixture, news: 0)
        let ids = (1...1001).map(String.init).joined(separator: ",")
        expectError(try app.markRead(.string(ids)), 422, ["base"])
        #expect(try app.markRead(.string((1...1000).map(String.init).joined(separator: ","))).status == 200)
    }

    @Test(.bug(id: "apitests-2", "a repeated id in mark_read records several opens and is listed twice"))
    func repeatedIDsCountOnce() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 0)
        let response = try app.markRead(.string("\(all[0]),\(all[0]),\(all[0])"), eventType: "app_open_via_push")
        #expect(response.status == 200)
        #expect(response.value?["badge"] == .int(0))
        let opens = try fixture.store.read { try $0.inbox.eventCount(notificationID: all[0], kind: .opened) }
        #expect(response.value?["user_notifications"] == [.int(all[0])])
        #expect(opens == 1)
    }

    @Test(.bug(id: "apitests-3", "an event_type that is not a string is silently taken as read_through_app"))
    func aNonStringEventTypeIs422() throws {
        let fixture = try ServerFixture()
        let (app, all) = try userWithNews(fixture, news: 0)
        for eventType: JSON in [.object([("type", "app_open_via_push")]), .array(["app_open_via_push"])] {
            let response = try app.markRead(.string("\(all[0])"), eventType: eventType)
            expectError(response, 422, ["event_type"])
        }
    }
}
