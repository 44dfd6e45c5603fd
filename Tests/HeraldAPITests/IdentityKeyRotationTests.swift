import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// A business's identity keys (`/api/admin/businesses/{id}/identity-keys`): a new one is added beside the old, both
/// vouch until the old is retired, and a retired (revoked) key vouches for nobody from then on — on every node and
/// after a restart. Tokens name their key (`<kid>.<hex>`); a bare hex token is the original key's, as before.
@Suite("Identity keys: rotation and revocation")
struct IdentityKeyRotationTests {
    /// `POST …/identity-keys`: the new key's `kid` and its text (shown this once).
    static func addKey(_ herald: LiveHerald, businessID: Int64) throws -> (kid: String, key: String) {
        let response = try herald.admin("POST", "/api/admin/businesses/\(businessID)/identity-keys")
        try #require(response.status == 201, "\(response)")
        #expect(response.value?["algorithm"] == "HMAC-SHA256")
        return (
            try #require(response.value?["kid"]?.stringValue),
            try #require(response.value?["identity_key"]?.stringValue)
        )
    }

    /// The listing: each key's `kid` and `retired_at` ("live" while it vouches).
    static func listed(_ herald: LiveHerald, businessID: Int64) throws -> [String: String] {
        let response = try herald.admin("GET", "/api/admin/businesses/\(businessID)/identity-keys")
        try #require(response.status == 200, "\(response)")
        #expect(!response.text.contains("identity_key\""), "the listing shows no key's text: \(response)")
        var keys: [String: String] = [:]
        for key in response.value?["identity_keys"]?.arrayValue ?? [] {
            #expect(key["created_at"]?.stringValue != nil && key["algorithm"] == "HMAC-SHA256", "\(key)")
            keys[key["kid"]?.stringValue ?? "?"] = key["retired_at"] == .null ? "live" : key["retired_at"]?.stringValue
        }
        return keys
    }

    /// `PUT /api/v1/device/user` as `externalID` with `token`: its status.
    static func identify(_ phone: DeviceTestClient, _ externalID: String, _ token: String) throws -> Int {
        try DeviceIdentityTests.identify(phone, externalID, token: token).status
    }

    @Test(
        "a new key vouches beside the old until the old is retired; a retired key vouches for nobody",
        .bug(id: "issue-40-7", "identity tokens could never be rotated or revoked"))
    func aKeyIsReplacedWithAnOverlapAndRetired() throws {
        let fixture = try ServerFixture()
        let (herald, id) = (fixture.herald, fixture.business.id)
        let original = try DeviceIdentityTests.identityKey(fixture)
        let phone = try fixture.install("phone-1")
        let bare = DeviceIdentityTests.token("cust-42", key: original)
        #expect(try Self.identify(phone, "cust-42", bare) == 200, "a token signed the old way")
        #expect(try Self.identify(phone, "cust-42", "original." + bare) == 200, "the same, naming its key")
        #expect(try Self.listed(herald, businessID: id) == ["original": "live"])

        // The new key: both vouch while the backends move over.
        let new = try Self.addKey(herald, businessID: id)
        #expect(new.key.count == 43 && new.key != original)
        #expect(new.kid != "original" && !new.kid.contains("."))
        let signed = new.kid + "." + DeviceIdentityTests.token("cust-7", key: new.key)
        #expect(try Self.identify(phone, "cust-7", signed) == 200, "the new key vouches")
        #expect(try Self.identify(phone, "cust-42", bare) == 200, "and the old one still does")
        #expect(
            try Self.identify(phone, "cust-7", DeviceIdentityTests.token("cust-7", key: new.key)) == 403,
            "a token of a new key names it")
        #expect(
            try Self.identify(phone, "cust-7", new.kid + "." + DeviceIdentityTests.token("cust-7", key: original))
                == 403, "a token is checked under the key it names")
        // A registration takes the longer token too.
        let registered = try herald.deviceClient().register(
            apiKey: fixture.business.apiKey, [("external_id", "cust-7"), ("identity_token", .string(signed))])
        #expect(registered.status == 201, "\(registered)")

        // The original retired: tokens signed with it vouch for nobody; the new key's still do.
        #expect(try herald.admin("DELETE", "/api/admin/businesses/\(id)/identity-keys/original").status == 204)
        #expect(try Self.identify(phone, "cust-42", bare) == 403)
        #expect(try Self.identify(phone, "cust-42", "original." + bare) == 403)
        #expect(try Self.identify(phone, "cust-7", signed) == 200)
        let gone = try herald.admin("GET", "/api/admin/businesses/\(id)/identity-key")
        expectError(gone, 404, ["identity_key"])
        let listed = try Self.listed(herald, businessID: id)
        #expect(listed.count == 2 && listed["original"] != "live" && listed[new.kid] == "live")

        // Revoked: the key vouches for nobody at once. Retiring again changes nothing.
        #expect(try herald.admin("DELETE", "/api/admin/businesses/\(id)/identity-keys/\(new.kid)").status == 204)
        #expect(try Self.identify(phone, "cust-7", signed) == 403)
        let retired = try Self.listed(herald, businessID: id)
        #expect(retired.values.allSatisfy { $0 != "live" })
        #expect(try herald.admin("DELETE", "/api/admin/businesses/\(id)/identity-keys/\(new.kid)").status == 204)
        #expect(try Self.listed(herald, businessID: id) == retired)
    }

    @Test("another business's key id is nobody's here: not retired, not listed, vouching for nothing")
    func keysAreTheBusinesss() throws {
        let fixture = try ServerFixture()
        let (herald, id) = (fixture.herald, fixture.business.id)
        let other = try herald.createBusiness(name: "Other Co")
        let theirs = try Self.addKey(herald, businessID: other.id)
        let phone = try fixture.install("phone-1")
        let token = theirs.kid + "." + DeviceIdentityTests.token("victim", key: theirs.key)
        #expect(try Self.identify(phone, "victim", token) == 403, "their key vouches for their users only")
        let refused = try herald.admin("DELETE", "/api/admin/businesses/\(id)/identity-keys/\(theirs.kid)")
        expectError(refused, 404, ["kid"])
        #expect(try Self.listed(herald, businessID: id).keys.sorted() == ["original"])
        #expect(try Self.listed(herald, businessID: other.id)[theirs.kid] == "live", "theirs still vouches")
        for path in ["identity-keys/nope", "identity-keys/%00", "identity-keys/" + String(repeating: "k", count: 300)] {
            expectError(try herald.admin("DELETE", "/api/admin/businesses/\(id)/\(path)"), 404, ["kid"])
        }
        #expect(try herald.admin("POST", "/api/admin/businesses/999999/identity-keys").status == 404)
        #expect(try herald.client().request("POST", "/api/admin/businesses/\(id)/identity-keys").status == 401)
        // At most ten keys vouch at once.
        for _ in 0..<9 { _ = try Self.addKey(herald, businessID: id) }
        expectError(try herald.admin("POST", "/api/admin/businesses/\(id)/identity-keys"), 422, ["base"])
    }

    @Test("docs/sdk.md's recipe signs a token the server takes")
    func theGuidesRecipeSigns() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/sdk.md"), encoding: .utf8)
        let section = try #require(guide.range(of: "## Identity: your user's login and logout"))
        let start = try #require(guide.range(of: "```sh\n", range: section.upperBound..<guide.endIndex))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let recipe = String(guide[start.upperBound..<end.lowerBound])
        #expect(recipe.contains("kid=ik_0123456789abcdef"))

        let fixture = try ServerFixture()
        let new = try Self.addKey(fixture.herald, businessID: fixture.business.id)
        let shell = try ChildProcess(
            "/bin/sh", ["-c", recipe.replacingOccurrences(of: "kid=ik_0123456789abcdef", with: "kid=" + new.kid)],
            environment: ["PATH": "/usr/bin:/bin", "HERALD_IDENTITY_KEY": new.key], output: .pipe)
        let printed = shell.output!.readDataToEndOfFile()
        shell.wait()
        let token = String(decoding: printed, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token == new.kid + "." + DeviceIdentityTests.token("cust-42", key: new.key))
        #expect(try Self.identify(try fixture.install(), "cust-42", token) == 200)
    }

    @Test("keys and retirements outlive a restart")
    func keysSurviveARestart() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let first = try LiveHerald { $0.dataDirectory = data }
        let business = try first.createBusiness()
        let new = try Self.addKey(first, businessID: business.id)
        #expect(try first.admin("DELETE", "/api/admin/businesses/\(business.id)/identity-keys/original").status == 204)
        first.stop()

        let again = try LiveHerald { $0.dataDirectory = data }
        defer { again.stop() }
        let phone = again.deviceClient()
        #expect(try phone.register(apiKey: business.apiKey).status == 201)
        let token = new.kid + "." + DeviceIdentityTests.token("cust-1", key: new.key)
        #expect(try Self.identify(phone, "cust-1", token) == 200)
        #expect(try again.admin("GET", "/api/admin/businesses/\(business.id)/identity-key").status == 404)
    }

    @Test(
        "a key added on one node vouches on another, and one retired there stops vouching here at once",
        .enabled(if: !TestPostgres.isOff, "PostgreSQL tests turned off (HERALD_TEST_POSTGRES=off)"))
    func keysAreTheFleets() throws {
        let fleet = try LiveHerald.Fleet()
        func node() throws -> LiveHerald {
            try LiveHerald {
                $0.delivery.enabled = false
                fleet.join(&$0)
            }
        }
        let (first, second) = (try node(), try node())
        defer {
            first.stop()
            second.stop()
        }
        let business = try first.createBusiness()
        let new = try Self.addKey(first, businessID: business.id)
        let phone = second.deviceClient()
        #expect(try phone.register(apiKey: business.apiKey).status == 201)
        let token = new.kid + "." + DeviceIdentityTests.token("cust-1", key: new.key)
        #expect(try Self.identify(phone, "cust-1", token) == 200, "added on the first node, taken on the second")
        #expect(
            try second.admin("DELETE", "/api/admin/businesses/\(business.id)/identity-keys/\(new.kid)").status == 204)
        let onFirst = first.deviceClient()
        #expect(try onFirst.register(apiKey: business.apiKey).status == 201)
        #expect(try Self.identify(onFirst, "cust-1", token) == 403, "retired on the second node, refused on the first")
    }
}
