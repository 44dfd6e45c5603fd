import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// Segment filters evaluated in the database, on every backend, against one small world whose answers are
/// worked out by hand: both engines must agree with them exactly.
@Suite("Store conformance: audiences")
struct AudienceRecordsTests {
    /// Users with attributes, and devices of every kind: live installs, a Punchh-only device, a device without a
    /// user, sandbox installs approved, pending and idle.
    final class World {
        let fixture: StoreFixture
        var devices: [String: Int64] = [:]
        var users: [String: Int64] = [:]
        var businessID: Int64 { fixture.business.id }
        let now = at(0)

        init(_ backend: StoreBackend) throws {
            fixture = try StoreFixture(backend)
            let business = fixture.business.id
            let now = self.now
            let people: [(String, JSON)] = [
                ("ann", ["tier": "gold", "age": 34, "vip": true, "city": "Brooklyn"]),
                ("bob", ["tier": "silver", "age": "34", "vip": false, "fruit": "apple"]),
                ("cat", ["tier": "gold", "age": 21.5, "score": -3, "fruit": "Banana"]),
                ("dan", ["name": "Zoë"]),
            ]
            try fixture.store.transaction { tx in
                for (name, attributes) in people {
                    users[name] = try tx.users.insertImported(
                        businessID: business, externalID: name, email: nil, firstName: name, lastName: "",
                        attributes: attributes, at: now
                    ).id
                }
            }
            let day: Int64 = 86_400
            try add("d1", user: "ann", .apns, token: true, workspace: .live, seen: -day, segments: ["beta"])
            try add("d2", user: "bob", .fcm, token: true, workspace: nil, seen: nil)
            try add(
                "d3", user: "cat", .apns, token: false, workspace: .live, seen: -40 * day, segments: ["beta", "news"])
            try add("d4", user: "dan", .fcm, token: true, workspace: .live, seen: -2 * day)
            try add("d5", user: nil, .apns, token: true, workspace: .live, seen: 0)
            try add("d6", user: "ann", .apns, token: true, workspace: .sandbox, seen: -day, test: "approved")
            try add("d7", user: "cat", .apns, token: true, workspace: .sandbox, seen: -day, test: "pending")
            try add("d8", user: "bob", .fcm, token: true, workspace: .sandbox, seen: -40 * day, test: "approved")
        }

        func add(
            _ name: String, user: String?, _ platform: PushPlatform, token: Bool, workspace: Install.Workspace?,
            seen: Int64?, segments: [String] = [], test: String? = nil
        ) throws {
            let business = businessID
            let now = self.now
            let userID = user.map { users[$0]! }
            devices[name] = try fixture.store.transaction { tx in
                var device = try tx.devices.insertImported(
                    businessID: business, key: "key-" + name, userID: userID, platform: platform,
                    token: "token-" + name, at: now)
                device.userID = userID
                if !token { device.token = nil }
                if let workspace {
                    device.install = Install(
                        workspace: workspace, keyID: "kid-" + name, sealedSecret: [1], timeZone: "Europe/Paris",
                        testStatus: test, lastSeenAt: seen.map { at($0) })
                }
                try tx.devices.save(device)
                try tx.devices.setSegments(id: device.id, segments)
                return device.id
            }
        }

        /// The names of the devices `audience` reaches, by count and by paging (which must agree), sorted.
        func names(_ audience: Audience, sandbox: Bool = false) throws -> [String] {
            let store = fixture.store
            let business = businessID
            let now = self.now
            var found: [AudienceTarget] = []
            var cursor: Int64 = 0
            while true {
                let page = try store.read { tx in
                    try tx.audiences.targets(
                        businessID: business, audience: audience, sandboxOnly: sandbox, after: cursor, limit: 2, at: now
                    )
                }
                #expect(page.count <= 2)
                guard let last = page.last else { break }
                #expect(page.map(\.deviceID) == page.map(\.deviceID).sorted() && page[0].deviceID > cursor)
                found += page
                cursor = last.deviceID
            }
            let count = try store.read {
                try $0.audiences.count(businessID: business, audience: audience, sandboxOnly: sandbox, at: now)
            }
            #expect(count == found.count, "count and targets disagree for \(audience)")
            let byID = Dictionary(uniqueKeysWithValues: devices.map { ($1, $0) })
            return found.map { byID[$0.deviceID] ?? "?" }.sorted()
        }

        func names(_ filter: String) throws -> [String] {
            try names(.segment(try SegmentFilter(json: try JSON.parse(filter))))
        }
    }

    static let cases: [(filter: String, devices: [String])] = [
        (#"{"all":[]}"#, ["d1", "d2", "d3", "d4", "d5"]),
        (#"{"any":[]}"#, []),
        (#"{"attribute":"tier","op":"eq","value":"gold"}"#, ["d1", "d3"]),
        (#"{"attribute":"tier","op":"ne","value":"gold"}"#, ["d2", "d4", "d5"]),
        // Numbers as numbers, strings as strings: Bob's "34" is not 34.
        (#"{"attribute":"age","op":"eq","value":34}"#, ["d1"]),
        (#"{"attribute":"age","op":"eq","value":34.0}"#, ["d1"]),
        (#"{"attribute":"age","op":"eq","value":"34"}"#, ["d2"]),
        (#"{"attribute":"age","op":"gt","value":30}"#, ["d1"]),
        (#"{"attribute":"age","op":"lt","value":30}"#, ["d3"]),
        (#"{"attribute":"age","op":"lt","value":"4"}"#, ["d2"]),
        (#"{"attribute":"tier","op":"gt","value":"gold"}"#, ["d2"]),
        (#"{"attribute":"score","op":"lt","value":0}"#, ["d3"]),
        (#"{"attribute":"score","op":"gt","value":-5.5}"#, ["d3"]),
        // By bytes, not by a locale: "apple" sorts after "Banana".
        (#"{"attribute":"fruit","op":"gt","value":"Banana"}"#, ["d2"]),
        (#"{"attribute":"fruit","op":"lt","value":"apple"}"#, ["d3"]),
        (#"{"attribute":"name","op":"lt","value":"Zz"}"#, ["d4"]),
        (#"{"attribute":"name","op":"gt","value":"Zo"}"#, ["d4"]),
        (#"{"attribute":"name","op":"eq","value":"Zoë"}"#, ["d4"]),
        (#"{"attribute":"vip","op":"eq","value":true}"#, ["d1"]),
        (#"{"attribute":"vip","op":"eq","value":false}"#, ["d2"]),
        (#"{"attribute":"vip","op":"ne","value":true}"#, ["d2", "d3", "d4", "d5"]),
        (#"{"attribute":"vip","op":"eq","value":"true"}"#, []),
        (#"{"attribute":"tier","op":"in","value":["gold","platinum"]}"#, ["d1", "d3"]),
        (#"{"attribute":"age","op":"in","value":[34,"34"]}"#, ["d1", "d2"]),
        (#"{"attribute":"age","op":"in","value":[21.5]}"#, ["d3"]),
        (#"{"attribute":"vip","op":"in","value":[false,true]}"#, ["d1", "d2"]),
        (#"{"attribute":"city","op":"exists"}"#, ["d1"]),
        (#"{"attribute":"age","op":"exists"}"#, ["d1", "d2", "d3"]),
        (#"{"not":{"attribute":"city","op":"exists"}}"#, ["d2", "d3", "d4", "d5"]),
        (#"{"not":{"attribute":"age","op":"gt","value":30}}"#, ["d2", "d3", "d4", "d5"]),
        (#"{"segment":"beta"}"#, ["d1", "d3"]),
        (#"{"not":{"segment":"beta"}}"#, ["d2", "d4", "d5"]),
        (#"{"segment":"nobody"}"#, []),
        (#"{"platform":"ios"}"#, ["d1", "d3", "d5"]),
        (#"{"platform":"android"}"#, ["d2", "d4"]),
        (#"{"last_seen_within_days":7}"#, ["d1", "d4", "d5"]),
        (#"{"last_seen_within_days":41}"#, ["d1", "d3", "d4", "d5"]),
        (#"{"not":{"last_seen_within_days":7}}"#, ["d2", "d3"]),
        (
            #"{"all":[{"attribute":"tier","op":"eq","value":"gold"},{"platform":"ios"},{"segment":"news"}]}"#,
            ["d3"]
        ),
        (
            #"{"any":[{"attribute":"age","op":"gt","value":60},{"attribute":"vip","op":"eq","value":false},{"segment":"news"}]}"#,
            ["d2", "d3"]
        ),
        (
            #"{"not":{"any":[{"all":[{"attribute":"tier","op":"eq","value":"gold"},{"not":{"segment":"beta"}}]},{"platform":"android"}]}}"#,
            ["d1", "d3", "d5"]
        ),
        (#"{"attribute":"tier","op":"eq","value":"'; DROP TABLE users; --"}"#, []),
        (#"{"attribute":"tier\"","op":"eq","value":"gold"}"#, []),
    ]

    @Test(arguments: StoreBackend.allCases)
    func filtersSelectTheSameDevicesOnEveryBackend(_ backend: StoreBackend) throws {
        let world = try World(backend)
        for (text, expected) in Self.cases {
            // A key no import can write is refused by the grammar before any SQL is made.
            guard let json = try? JSON.parse(text), (try? SegmentFilter(json: json)) != nil else {
                #expect(text.contains(#"tier\""#), "\(text) was refused")
                continue
            }
            #expect(try world.names(text) == expected, "\(backend): \(text)")
        }
        #expect(
            try world.fixture.store.read { try $0.users.find(businessID: world.businessID, externalIDs: ["ann"]) }.count
                == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func audiencesOfAllAndOfUsersAndSandbox(_ backend: StoreBackend) throws {
        let world = try World(backend)
        #expect(try world.names(.all) == ["d1", "d2", "d3", "d4", "d5"])
        #expect(try world.names(.userIDs([world.users["ann"]!, world.users["bob"]!])) == ["d1", "d2"])
        #expect(try world.names(.userIDs([])) == [])
        #expect(try world.names(.userIDs([999_999])) == [])
        // Only approved test devices seen within 30 days.
        #expect(try world.names(.all, sandbox: true) == ["d6"])
        #expect(try world.names(.userIDs([world.users["ann"]!]), sandbox: true) == ["d6"])
        #expect(try world.names(.segment(.platform(.fcm)), sandbox: true) == [])
        // Another business's devices are never reached.
        let other = try world.fixture.store.transaction {
            try $0.businesses.insert(name: "Other", clientID: "c2", sealedSecret: [], posKeyHash: "p2", at: at(0))
        }
        let count = try world.fixture.store.read {
            try $0.audiences.count(businessID: other.id, audience: .all, sandboxOnly: false, at: at(0))
        }
        #expect(count == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func targetsSayWhatTheFanOutNeeds(_ backend: StoreBackend) throws {
        let world = try World(backend)
        let targets = try world.fixture.store.read {
            try $0.audiences.targets(
                businessID: world.businessID, audience: .all, sandboxOnly: false, after: 0, limit: 100, at: world.now)
        }
        #expect(targets.count == 5)
        let d1 = targets.first { $0.deviceID == world.devices["d1"] }
        #expect(
            d1
                == AudienceTarget(
                    deviceID: world.devices["d1"]!, userID: world.users["ann"], platform: .apns, hasToken: true,
                    timeZone: "Europe/Paris", isInstall: true))
        let d2 = targets.first { $0.deviceID == world.devices["d2"] }
        #expect(d2?.isInstall == false && d2?.timeZone == nil && d2?.platform == .fcm && d2?.hasToken == true)
        #expect(targets.first { $0.deviceID == world.devices["d3"] }?.hasToken == false)
        #expect(targets.first { $0.deviceID == world.devices["d5"] }?.userID == nil)
        // Resuming after the last id seen.
        let rest = try world.fixture.store.read {
            try $0.audiences.targets(
                businessID: world.businessID, audience: .all, sandboxOnly: false, after: targets[2].deviceID,
                limit: 100, at: world.now)
        }
        #expect(rest == Array(targets[3...]))
    }

    @Test(arguments: StoreBackend.allCases)
    func segmentsAreStoredByName(_ backend: StoreBackend) throws {
        let world = try World(backend)
        let store = world.fixture.store
        let business = world.businessID
        let filter = try SegmentFilter(
            json: try JSON.parse(
                #"{"all":[{"attribute":"tier","op":"in","value":["gold",1,true]},{"platform":"ios"}]}"#))
        let gold = try store.transaction {
            try $0.segments.insert(businessID: business, name: "Gold", filter: filter, at: at(1))
        }
        #expect(gold.filter == filter && gold.name == "Gold" && gold.createdAt == at(1))
        #expect(try store.read { try $0.segments.find(businessID: business, id: gold.id) } == gold)
        let taken = #expect(throws: StoreError.self) {
            try store.transaction {
                try $0.segments.insert(businessID: business, name: "Gold", filter: .all([]), at: at(2))
            }
        }
        #expect(taken?.code == .conflict && taken?.field == "name")
        let all = try store.transaction {
            try $0.segments.insert(businessID: business, name: "All", filter: .all([]), at: at(2))
        }
        #expect(try store.read { try $0.segments.all(businessID: business, limit: 10) }.map(\.id) == [gold.id, all.id])
        #expect(
            try store.read { try $0.segments.all(businessID: business, after: gold.id, limit: 10) }.map(\.id) == [
                all.id
            ])
        #expect(try store.transaction { try $0.segments.delete(businessID: business, id: gold.id) })
        #expect(try !store.transaction { try $0.segments.delete(businessID: business, id: gold.id) })
        #expect(try store.read { try $0.segments.find(businessID: business, id: gold.id) } == nil)
        #expect(try store.read { try $0.segments.find(businessID: business + 1, id: all.id) } == nil)
    }
}
