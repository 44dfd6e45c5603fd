import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

@Suite("Admin API: audiences")
struct AudienceAPITests {
    static let apnsToken = String(repeating: "ab", count: 32)

    /// Posts `body` as an import into `businessID` (the fixture's by default).
    static func importLines(
        _ fixture: ServerFixture, _ body: [UInt8], businessID: Int64? = nil, token: String? = nil
    ) throws -> TestHTTPClient.Response {
        try fixture.herald.client().request(
            "POST", "/api/admin/businesses/\(businessID ?? fixture.business.id)/users/import",
            headers: [
                ("Authorization", "Bearer \(token ?? fixture.herald.adminToken)"),
                ("Content-Type", "application/x-ndjson"),
            ], body: body)
    }

    static func importLines(_ fixture: ServerFixture, _ lines: [String]) throws -> TestHTTPClient.Response {
        try importLines(fixture, Array(lines.joined(separator: "\n").utf8))
    }

    /// The `rejected` list as (line, fields).
    static func rejected(_ response: TestHTTPClient.Response) -> [(line: Int64, fields: [String])] {
        (response.value?["rejected"]?.arrayValue ?? []).map { item in
            (item["line"]?.int64Value ?? -1, (item["errors"]?.objectValue ?? []).map(\.key))
        }
    }

    @Test func anImportCreatesThenUpdatesAndIsIdempotent() throws {
        let fixture = try ServerFixture()
        let lines = [
            #"{"external_id":"crm-1","email":"One@Example.com","first_name":"One","attributes":{"tier":"gold","age":34},"devices":[{"install_id":"i-1","platform":"ios","push_token":"\#(Self.apnsToken)"}]}"#,
            #"{"external_id":2,"attributes":{"tier":"silver"},"devices":[{"platform":"android","push_token":"fcm-token-2-xxxxxxxxxxxxxxxxxxxx"}]}"#,
            "",
            #"{"email":"three@example.com","last_name":"Three"}"#,
        ]
        let first = try Self.importLines(fixture, lines)
        #expect(first.status == 200, "\(first)")
        #expect(first.value?["created"] == 3 && first.value?["updated"] == 0, "\(first)")
        #expect(first.value?["rejected"] == [] && first.value?["rejected_count"] == 0)
        #expect(first.value?["rejected_truncated"] == false && first.value?["lines"] == 4)
        let store = fixture.store
        let business = fixture.business.id
        let one = try #require(try store.read { try $0.users.find(businessID: business, externalIDs: ["crm-1"]) }.first)
        #expect(one.email == "one@example.com" && one.attributes == ["tier": "gold", "age": 34])
        let devices = try store.read { try $0.devices.all(userID: one.id) }
        #expect(devices.map(\.deviceKey) == ["i-1"] && devices.first?.platform == .apns)
        let two = try #require(try store.read { try $0.users.find(businessID: business, externalIDs: ["2"]) }.first)
        #expect(try store.read { try $0.devices.all(userID: two.id) }.first?.deviceKey.hasPrefix("token:") == true)

        let snapshot = {
            try store.database.read { connection in
                try connection.rows("SELECT * FROM users ORDER BY id").map(\.values)
                    + connection.rows("SELECT * FROM devices ORDER BY id").map(\.values)
            }
        }
        let before = try snapshot()
        let second = try Self.importLines(fixture, lines)
        #expect(second.value?["created"] == 0 && second.value?["updated"] == 3, "\(second)")
        #expect(try snapshot() == before)
    }

    @Test func anImportedUserSignsUpIntoTheirOwnRecord() throws {
        let mailer = RecordingMailer()
        let fixture = try ServerFixture { $0.mailer = mailer }
        let line =
            #"{"external_id":"crm-9","email":"Nine@Example.com","first_name":"Nina","attributes":{"tier":"gold"}}"#
        #expect(try Self.importLines(fixture, [line]).value?["created"] == 1)
        let business = fixture.business.id
        let record = {
            try #require(
                try fixture.store.read { try $0.users.find(businessID: business, externalIDs: ["crm-9"]) }.first)
        }
        let imported = try record()
        // Nobody signs in as them before they sign up: the record has no password.
        #expect(try fixture.app().logIn(email: "nine@example.com").status == 422)
        // Knowing the email claims nothing: the sign-up must prove it with the code mailed there.
        func signUp(_ email: String, phone: String? = nil, code: String? = nil) throws -> TestHTTPClient.Response {
            var user: [(key: String, value: JSON)] = [
                ("email", .string(email)), ("password", "their-own-1"), ("password_confirmation", "their-own-1"),
                ("first_name", "Nine"), ("last_name", "Lee"),
            ]
            if let phone { user.append(("phone", .string(phone))) }
            if let code { user.append(("email_code", .string(code))) }
            return try fixture.app().call("POST", "/api2/mobile/users", json: [("user", .object(user))])
        }
        expectError(try signUp("nine@example.com"), 422, ["email_code"])
        let code = try #require(mailer.code(to: "nine@example.com"), "\(mailer.sent)")
        expectError(
            try signUp("nine@example.com", code: code == "00000000" ? "11111111" : "00000000"), 422, ["email_code"])
        #expect(try record().passwordHash == "")
        // A sign-up into it with a phone another user has is refused like any other, and claims nothing.
        #expect(try signUp("ann@example.com", phone: "555-123-4567").status == 200)
        let taken = try signUp("nine@example.com", phone: "555-123-4567", code: code)
        expectError(taken, 422, "phone", "has already been taken")
        #expect(try record().passwordHash == "")

        let signedUp = try signUp("nine@example.com", code: code)
        #expect(signedUp.status == 200, "\(signedUp)")
        let app = fixture.app()
        #expect(try app.logIn(email: "nine@example.com", password: "their-own-1").status == 200)
        let claimed = try record()
        #expect(app.userID == imported.id, "sign-up made another user")
        #expect(claimed.attributes == ["tier": "gold"] && claimed.firstName == "Nine" && claimed.lastName == "Lee")
        #expect(try fixture.app().logIn(email: "nine@example.com", password: "their-own-1").status == 200)
        // Once claimed, the email is taken like any other, and the password stays the first sign-up's.
        let again = try fixture.app().signUp(email: "nine@example.com", password: "someone-else-2")
        #expect(again.text == #"{"errors":{"email":["has already been taken"]}}"#)
        #expect(try fixture.app().logIn(email: "nine@example.com", password: "someone-else-2").status == 422)
    }

    @Test(.bug(id: "issue-35-6", "whoever signed up first with an imported email got the record"))
    func aTrustedImportIsClaimedWithoutACode() throws {
        let mailer = RecordingMailer()
        let fixture = try ServerFixture { $0.mailer = mailer }
        #expect(
            try Self.importLines(fixture, [#"{"external_id":"crm-1","email":"one@example.com"}"#]).value?["created"]
                == 1)
        let settings = try fixture.herald.admin(
            "PUT", "/api/admin/businesses/\(fixture.business.id)/settings", json: #"{"import_trusted":true}"#)
        #expect(settings.value?["import_trusted"] == true, "\(settings)")
        let imported = try #require(
            try fixture.store.read { try $0.users.find(businessID: fixture.business.id, externalIDs: ["crm-1"]) }.first)
        let app = try fixture.signedUp("one@example.com")
        #expect(app.userID == imported.id)
        #expect(mailer.sent.isEmpty)
        expectError(
            try fixture.herald.admin(
                "PUT", "/api/admin/businesses/\(fixture.business.id)/settings", json: #"{"import_trusted":"yes"}"#),
            422, ["import_trusted"])
    }

    @Test func badLinesAreRefusedOneByOneAndTheRestImported() throws {
        let fixture = try ServerFixture()
        let long = #"{"external_id":"long","attributes":{"a":""# + String(repeating: "x", count: 70_000) + #""}}"#
        var body = Array(
            [
                #"{"external_id":"ok-1"}"#,  // 1
                #"{"external_id":"#,  // 2: malformed
                #"["external_id"]"#,  // 3: not an object
                #"{"first_name":"Nobody"}"#,  // 4: no identity
                #"{"email":"not an email"}"#,  // 5
                #"{"external_id":"x","attributes":{"a":{"b":1}}}"#,  // 6: a nested value
                #"{"external_id":"x","attributes":{"bad key":1}}"#,  // 7
                #"{"external_id":"x","devices":[{"platform":"ios","push_token":"nothex"}]}"#,  // 8
                #"{"external_id":"x","devices":[{"platform":"windows","push_token":"abc"}]}"#,  // 9
                #"{"external_id":"x","favourite":"fries"}"#,  // 10: an unknown field
                long,  // 11: too long
                "   ",  // 12: blank
            ].joined(separator: "\r\n").utf8)
        body += [0x0A] + Array(#"{"external_id":"bad"#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)  // 13: not UTF-8
        body += Array("\n{\"external_id\":\"ok-2\"}".utf8)  // 14
        let response = try Self.importLines(fixture, body)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["created"] == 2, "\(response)")
        let rejected = Self.rejected(response)
        #expect(rejected.map(\.line) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13], "\(response)")
        #expect(
            rejected.map(\.fields) == [
                ["base"], ["base"], ["base"], ["email"], ["attributes.a"], ["attributes"],
                ["devices[0].push_token"], ["devices[0].platform"], ["favourite"], ["base"], ["base"],
            ])
        #expect(response.value?["rejected_count"] == 11 && response.value?["lines"] == 14)
        #expect(response.text.contains("line is too long (\(long.utf8.count) bytes; at most 65536)"), "\(response)")
    }

    @Test func theRejectedListIsCappedAndSaysSo() throws {
        let fixture = try ServerFixture()
        let body = Array(String(repeating: "{\"first_name\":\"x\"}\n", count: 2_500).utf8)
        let response = try Self.importLines(fixture, body)
        #expect(response.status == 200)
        let rejected = Self.rejected(response)
        #expect(rejected.count == 1_000 && rejected.first?.line == 1 && rejected.last?.line == 1_000)
        #expect(response.value?["rejected_count"] == 2_500 && response.value?["rejected_truncated"] == true)
    }

    @Test func onlyTheAdminMayImportAndOnlyIntoABusiness() throws {
        let fixture = try ServerFixture()
        let wrong = try Self.importLines(fixture, Array(#"{"external_id":"a"}"#.utf8), token: "nope")
        #expect(wrong.status == 401, "\(wrong)")
        let unknown = try Self.importLines(fixture, Array(#"{"external_id":"a"}"#.utf8), businessID: 999_999)
        #expect(unknown.status == 404, "\(unknown)")
        let empty = try Self.importLines(fixture, [])
        #expect(empty.status == 200 && empty.value?["created"] == 0 && empty.value?["lines"] == 0, "\(empty)")
    }

    @Test(.tags(.endToEnd)) func aStrangerIsRefusedFromTheHeadBeforeTheBodyIsSent() throws {
        let fixture = try ServerFixture(transport: .socket)
        // Refused from the head: 50 MB declared and none sent.
        let client = fixture.herald.client()
        try client.send(
            raw: Array(
                """
                POST /api/admin/businesses/\(fixture.business.id)/users/import HTTP/1.1\r
                Host: x\r
                Content-Length: 50000000\r
                \r

                """.utf8))
        #expect(try client.readResponse().status == 401)
    }

    @Test(.tags(.endToEnd)) func aHundredThousandLinesImportInConstantMemory() throws {
        let server = try ServeProcess()
        let client = TestHTTPClient(port: server.port)
        client.timeout = 600
        let admin = [("Authorization", "Bearer \(ServeProcess.adminToken)")]
        let created = try client.request("POST", "/api/admin/businesses", headers: admin, json: #"{"name":"Big Co"}"#)
        let business = try #require(created.value?["id"]?.int64Value, "\(created)")
        let target = "/api/admin/businesses/\(business)/users/import"
        /// Imports users `first..<first + count` (each line about 400 bytes), generated as they are sent: the bytes.
        func importUsers(_ first: Int, _ count: Int) throws -> Int {
            try client.send(
                raw: Array(
                    """
                    POST \(target) HTTP/1.1\r
                    Host: x\r
                    Authorization: Bearer \(ServeProcess.adminToken)\r
                    Transfer-Encoding: chunked\r
                    \r

                    """.utf8))
            let padding = String(repeating: "p", count: 120)
            var total = 0
            for piece in stride(from: first, to: first + count, by: 1_000) {
                var text = ""
                for n in piece..<min(piece + 1_000, first + count) {
                    text +=
                        #"{"external_id":"u\#(n)","first_name":"User \#(n)","attributes":{"n":\#(n),"p":"\#(padding)"},"#
                    text +=
                        #""devices":[{"install_id":"d\#(n)","platform":"android","push_token":"fcm-\#(n)-\#(padding)"}]}"#
                    text += "\n"
                }
                total += text.utf8.count
                try client.send(raw: Array("\(String(text.utf8.count, radix: 16))\r\n\(text)\r\n".utf8))
            }
            try client.send(raw: Array("0\r\n\r\n".utf8))
            let response = try client.readResponse()
            #expect(response.status == 200, "\(response)")
            #expect(
                response.value?["created"] == .int(Int64(count)) && response.value?["rejected_count"] == 0,
                "\(response)")
            return total
        }
        // Warm up with 20,000 users of the same shape: threads, statement caches, the database's page cache and the
        // allocator's arenas reach what an import of any size uses. Then 100,000 more (40 MB) must not grow it.
        _ = try importUsers(100_000, 20_000)
        let before = server.peakKiB()
        let total = try importUsers(0, 100_000)
        let grown = server.peakKiB() - before
        // Holding the body, or its users, would show as 40 MB or more; measured here, 4-470 KiB.
        #expect(total > 40_000_000)
        #expect(grown < 8_000, "peak resident memory grew by \(grown) KiB importing \(total) bytes")
        let segment = try client.request(
            "POST", "/api/admin/businesses/\(business)/segments/count", headers: admin,
            json: #"{"filter":{"attribute":"n","op":"lt","value":1000}}"#)
        #expect(segment.value?["count"] == 1_000, "\(segment)")
    }

    // MARK: - Segments

    @Test func segmentsAreMadeCountedListedAndDeleted() throws {
        let fixture = try ServerFixture()
        let imported = try Self.importLines(
            fixture,
            (0..<10).map { n in
                #"{"external_id":"u\#(n)","attributes":{"tier":"\#(n < 3 ? "gold" : "silver")","n":\#(n)},"devices":[{"install_id":"d\#(n)","platform":"\#(n % 2 == 0 ? "ios" : "android")","push_token":"\#(n % 2 == 0 ? Self.apnsToken.dropLast(2) + String(format: "%02x", n) : "fcm-token-\(n)-xxxxxxxxxxxxxxxxxxxx")"}]}"#
            })
        #expect(imported.value?["created"] == 10, "\(imported)")
        let base = "/api/admin/businesses/\(fixture.business.id)/segments"
        let filter = #"{"all":[{"attribute":"tier","op":"eq","value":"gold"},{"platform":"ios"}]}"#
        let created = try fixture.herald.admin("POST", base, json: #"{"name":"Gold on iOS","filter":\#(filter)}"#)
        #expect(created.status == 201, "\(created)")
        let id = try #require(created.value?["id"]?.int64Value)
        #expect(created.value?["filter"] == (try JSON.parse(filter)))

        let shown = try fixture.herald.admin("GET", "\(base)/\(id)")
        #expect(shown.status == 200 && shown.value?["count"] == 2, "\(shown)")  // u0, u2
        #expect(shown.value?["name"] == "Gold on iOS")

        let count = try fixture.herald.admin(
            "POST", "\(base)/count", json: #"{"filter":{"attribute":"n","op":"gt","value":6}}"#)
        #expect(count.status == 200 && count.value?["count"] == 3, "\(count)")

        let taken = try fixture.herald.admin("POST", base, json: #"{"name":"Gold on iOS","filter":{"all":[]}}"#)
        #expect(taken.status == 422 && taken.errorFields?["name"] != nil, "\(taken)")
        let bad = try fixture.herald.admin(
            "POST", base, json: #"{"name":"Bad","filter":{"all":[{"segment":"a"},{"attribute":"x","op":"like"}]}}"#)
        #expect(bad.status == 422, "\(bad)")
        #expect(bad.errorFields?["filter.all[1].op"] == ["must be one of: eq, ne, lt, gt, in, exists"], "\(bad)")
        let missing = try fixture.herald.admin("POST", base, json: #"{"filter":{"all":[]},"colour":"red"}"#)
        #expect(missing.errorFields.map { Set($0.keys) } == ["name", "colour"], "\(missing)")

        let second = try fixture.herald.admin("POST", base, json: #"{"name":"Everyone","filter":{"all":[]}}"#)
        let list = try fixture.herald.admin("GET", "\(base)?limit=1")
        #expect(list.value?["data"]?.arrayValue?.map { $0["id"] } == [.int(id)], "\(list)")
        #expect(list.value?["next_after"] == .int(id))
        let rest = try fixture.herald.admin("GET", "\(base)?after=\(id)")
        #expect(rest.value?["data"]?.arrayValue?.map { $0["id"] } == [second.value?["id"]], "\(rest)")
        #expect(rest.value?["next_after"] == .null)

        #expect(try fixture.herald.admin("DELETE", "\(base)/\(id)").status == 204)
        #expect(try fixture.herald.admin("GET", "\(base)/\(id)").status == 404)
        #expect(try fixture.herald.admin("DELETE", "\(base)/\(id)").status == 404)
        #expect(try fixture.herald.admin("GET", "\(base)/abc").status == 404)
        #expect(try fixture.herald.admin("GET", "\(base)?limit=0").status == 422)
    }
}
