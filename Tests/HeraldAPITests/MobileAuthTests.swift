import Foundation
import HeraldModel
import HeraldSQLite
import HeraldTesting
import Testing

/// The mobile API: the `x-pch-digest` signature, the `client` that names the business, and the bearer token.
@Suite("Mobile API: signatures and identity")
struct MobileAuthTests {
    private static let signUpTarget = "/api2/mobile/users"

    private func signUpBody(_ fixture: ServerFixture, email: String, client: String? = nil) -> String {
        JSON.object([("client", .string(client ?? fixture.business.client)), ("user", signUpUser(email: email))])
            .encodedString
    }

    /// Whether `email` can log in with the default password (i.e. whether a refused sign-up left nothing behind).
    private func accountExists(_ fixture: ServerFixture, _ email: String) throws -> Bool {
        try fixture.app().logIn(email: email).status == 200
    }

    // MARK: - Digest

    @Test func aMissingDigestIs412InvalidSignature() throws {
        let fixture = try ServerFixture()
        let app = fixture.app()
        let response = try app.call(
            "POST", Self.signUpTarget, body: signUpBody(fixture, email: "ann@example.com"), digest: "")
        #expect(response.status == 412, "\(response)")
        #expect(response.isJSON)
        let errors = try #require(response.errorFields, "\(response)")
        #expect(Array(errors.keys) == ["invalid_signature"])
        #expect(errors["invalid_signature"]?.count == 1)
        #expect(try !accountExists(fixture, "ann@example.com"))

        // A GET without a digest is refused the same way.
        expectError(
            try app.call("GET", "/api2/mobile/users/profile?client=\(fixture.business.client)", digest: ""), 412,
            ["invalid_signature"])
        // Before anything else about the call: an unsigned call with a broken body, or naming no client or an
        // unknown one, is still told first that it is unsigned.
        expectError(
            try app.call("POST", Self.signUpTarget, body: "{not json", digest: ""), 412,
            ["invalid_signature"])
        expectError(try app.call("GET", "/api2/mobile/users/profile", digest: ""), 412, ["invalid_signature"])
        expectError(
            try app.call("GET", "/api2/mobile/users/profile?client=nobody", digest: ""), 412, ["invalid_signature"])
    }

    @Test(arguments: [
        String(repeating: "0", count: 64),  // right length, wrong value
        "not-hex-at-all",
        "abc",  // odd length
        String(repeating: "g", count: 64),
    ])
    func aWrongDigestIs412(_ digest: String) throws {
        let fixture = try ServerFixture()
        let response = try fixture.app().call(
            "POST", Self.signUpTarget, body: signUpBody(fixture, email: "ann@example.com"), digest: digest)
        expectError(response, 412, ["invalid_signature"])
        #expect(try !accountExists(fixture, "ann@example.com"))
    }

    @Test func aTruncatedOrExtendedDigestIs412() throws {
        let fixture = try ServerFixture()
        let body = signUpBody(fixture, email: "ann@example.com")
        let right = MobileTestClient.digest(
            target: Self.signUpTarget, body: Array(body.utf8), secret: fixture.business.secret)
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: body, digest: String(right.prefix(32))), 412,
            ["invalid_signature"])
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: body, digest: right + "00"), 412,
            ["invalid_signature"])
        #expect(try fixture.app().call("POST", Self.signUpTarget, body: body, digest: right).status == 200)
    }

    @Test func theDigestMustCoverTheQueryString() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let target = "/api2/mobile/notifications?client=\(fixture.business.client)&qty=5"
        let pathOnly = MobileTestClient.digest(
            target: "/api2/mobile/notifications", body: [], secret: fixture.business.secret)
        expectError(try app.call("GET", target, digest: pathOnly), 412, ["invalid_signature"])

        // Reordering the query after signing breaks the signature too: it covers the bytes as sent.
        let signed = MobileTestClient.digest(target: target, body: [], secret: fixture.business.secret)
        let reordered = "/api2/mobile/notifications?qty=5&client=\(fixture.business.client)"
        expectError(try app.call("GET", reordered, digest: signed), 412, ["invalid_signature"])

        // The correct digest over path and query passes.
        let response = try app.call("GET", target)
        #expect(response.status == 200, "\(response)")
    }

    @Test func anUpperCaseHexDigestIsAccepted() throws {
        let fixture = try ServerFixture()
        let body = signUpBody(fixture, email: "ann@example.com")
        let digest = MobileTestClient.digest(
            target: Self.signUpTarget, body: Array(body.utf8), secret: fixture.business.secret)
        #expect(digest != digest.uppercased())
        let response = try fixture.app().call("POST", Self.signUpTarget, body: body, digest: digest.uppercased())
        #expect(response.status == 200, "\(response)")
    }

    @Test func theDigestHeaderNameIsCaseInsensitive() throws {
        let fixture = try ServerFixture()
        let body = signUpBody(fixture, email: "ann@example.com")
        let digest = MobileTestClient.digest(
            target: Self.signUpTarget, body: Array(body.utf8), secret: fixture.business.secret)
        let response = try fixture.app().call(
            "POST", Self.signUpTarget, body: body, digest: "", headers: [("X-PCH-Digest", digest)])
        #expect(response.status == 200, "\(response)")
    }

    @Test func aBodyModifiedAfterSigningIs412() throws {
        let fixture = try ServerFixture()
        let signedBody = signUpBody(fixture, email: "ann@example.com")
        let digest = MobileTestClient.digest(
            target: Self.signUpTarget, body: Array(signedBody.utf8), secret: fixture.business.secret)

        let changed = signUpBody(fixture, email: "eve@example.com")
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: changed, digest: digest), 412, ["invalid_signature"]
        )
        // Even a byte of whitespace counts: the digest is over the raw body.
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: signedBody + " ", digest: digest), 412,
            ["invalid_signature"])
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: " " + signedBody, digest: digest), 412,
            ["invalid_signature"])
        #expect(try !accountExists(fixture, "eve@example.com"))
        #expect(try !accountExists(fixture, "ann@example.com"))
    }

    @Test func aDigestMadeWithAnotherBusinessSecretIs412() throws {
        let fixture = try ServerFixture()
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        // Names this business, signs with the other's secret.
        let body = signUpBody(fixture, email: "ann@example.com")
        let foreign = MobileTestClient.digest(target: Self.signUpTarget, body: Array(body.utf8), secret: other.secret)
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: body, digest: foreign), 412, ["invalid_signature"])
        // And the other way round.
        let otherBody = signUpBody(fixture, email: "ann@example.com", client: other.client)
        let ours = MobileTestClient.digest(
            target: Self.signUpTarget, body: Array(otherBody.utf8), secret: fixture.business.secret)
        expectError(
            try fixture.app().call("POST", Self.signUpTarget, body: otherBody, digest: ours), 412, ["invalid_signature"]
        )
        #expect(try !accountExists(fixture, "ann@example.com"))
    }

    // MARK: - Client

    @Test func aMissingClientIs400() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([("user", signUpUser(email: "ann@example.com"))]).encodedString
        expectError(try fixture.app().call("POST", Self.signUpTarget, body: body), 400, ["client"])
        let empty = JSON.object([("client", ""), ("user", signUpUser(email: "ann@example.com"))]).encodedString
        expectError(try fixture.app().call("POST", Self.signUpTarget, body: empty), 400, ["client"])
        // A GET with neither body nor query.
        expectError(try fixture.app().call("GET", "/api2/mobile/users/profile"), 400, ["client"])
        #expect(try !accountExists(fixture, "ann@example.com"))
    }

    @Test func anUnknownClientIs401() throws {
        let fixture = try ServerFixture()
        let body = signUpBody(fixture, email: "ann@example.com", client: "0123456789abcdef0123456789abcdef")
        expectError(try fixture.app().call("POST", Self.signUpTarget, body: body), 401, ["client"])
        expectError(try fixture.app().call("GET", "/api2/mobile/users/profile?client=nobody"), 401, ["client"])
        #expect(try !accountExists(fixture, "ann@example.com"))
    }

    @Test func theClientMayComeFromTheQuery() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let response = try app.call("GET", "/api2/mobile/users/profile?client=\(fixture.business.client)")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["user_id"] == .int(app.userID!))
    }

    // MARK: - Bearer token

    @Test func aMissingBearerTokenIs401() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        app.accessToken = nil
        expectError(try app.profile(), 401, ["base"])
        expectError(try app.inbox(), 401, ["base"])
        expectError(try app.update([("first_name", "Eve")]), 401, ["base"])
        expectError(try app.markRead("1"), 401, ["base"])
        expectError(try app.call("DELETE", "/api2/mobile/notifications/1", json: []), 401, ["base"])
        expectError(try app.logOut(), 401, ["base"])
    }

    @Test(arguments: [
        "garbage", "hat_", "hat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", String(repeating: "x", count: 4000),
    ])
    func aGarbageBearerTokenIs401(_ token: String) throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        app.accessToken = token
        expectError(try app.profile(), 401, ["base"])
        expectError(try app.update([("first_name", "Eve")]), 401, ["base"])
    }

    @Test func aTokenInAnotherSchemeIs401() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let token = try #require(app.accessToken)
        app.accessToken = nil
        let target = "/api2/mobile/users/profile?client=\(fixture.business.client)"
        expectError(try app.call("GET", target, headers: [("Authorization", "Basic \(token)")]), 401, ["base"])
        expectError(try app.call("GET", target, headers: [("Authorization", token)]), 401, ["base"])
        expectError(try app.call("GET", target, headers: [("Authorization", "Bearer ")]), 401, ["base"])
        // The scheme is case-insensitive (RFC 7235).
        #expect(try app.call("GET", target, headers: [("Authorization", "bearer \(token)")]).status == 200)
    }

    @Test func aTokenRevokedByLogoutIs401() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        #expect(try app.profile().status == 200)
        let logout = try app.logOut()
        #expect(logout.status == 200, "\(logout)")
        expectError(try app.profile(), 401, ["base"])
        expectError(try app.inbox(), 401, ["base"])
        expectError(try app.logOut(), 401, ["base"])
    }

    @Test func aLogoutOnAnotherNodeIsSeenWithinTheSessionCacheLifetime() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        #expect(try app.profile().status == 200)
        // Another node: its own connection to the database, whose commits this process does not count.
        let otherNode = try SQLiteDatabase(path: fixture.herald.directory.file("herald.db"))
        let revoked = try otherNode.write { db in
            try db.execute("UPDATE sessions SET revoked_at = \(Int64(Date().timeIntervalSince1970 * 1000))")
        }
        #expect(revoked == 1)
        let revokedAt = Date()
        var status = try app.profile().status
        try Poll.until(timeout: .seconds(5), every: .milliseconds(50)) {
            status = try app.profile().status
            return status != 200
        }
        #expect(status == 401)
        // Within the cache's second, with a margin for a loaded machine.
        #expect(Date().timeIntervalSince(revokedAt) < 2.5, "seen within the session cache's lifetime")
    }

    @Test func logoutRevokesOnlyThatSession() throws {
        let fixture = try ServerFixture()
        let phone = try fixture.signedUp("ann@example.com")
        let tablet = fixture.app()
        #expect(try tablet.logIn(email: "ann@example.com").status == 200)
        #expect(phone.accessToken != tablet.accessToken)
        #expect(try phone.logOut().status == 200)
        expectError(try phone.profile(), 401, ["base"])
        #expect(try tablet.profile().status == 200)
    }

    @Test func aTokenOfAnotherBusinessIs401() throws {
        let fixture = try ServerFixture()
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        let theirs = fixture.herald.mobileClient(for: other)
        #expect(try theirs.signUp(email: "ann@example.com").status == 200)

        let ours = fixture.app()
        ours.accessToken = theirs.accessToken
        expectError(try ours.profile(), 401, ["base"])
        expectError(try ours.inbox(), 401, ["base"])
        expectError(try ours.logOut(), 401, ["base"])
        // The token was not revoked by the foreign logout attempt.
        #expect(try theirs.profile().status == 200)
    }

    @Test func anExpiredTokenIs401() throws {
        let clock = TestClock()
        let fixture = try ServerFixture(clock: clock.wallClock) { $0.accessTokenLifetime = .seconds(1) }
        let app = try fixture.signedUp("ann@example.com")
        #expect(try app.profile().status == 200)
        clock.advance(by: .seconds(2))
        expectError(try app.profile(), 401, ["base"])
    }

    // MARK: - Bodies on GET

    @Test func aGetWithAJSONBodyWorks() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        // As Punchh clients send it: the client in a JSON body on a GET.
        let profile = try app.call("GET", "/api2/mobile/users/profile", json: [])
        #expect(profile.status == 200, "\(profile)")
        #expect(profile.value?["user_id"] == .int(app.userID!))
        #expect(profile.value?["email"] == "ann@example.com")

        try fixture.news(to: app.userID!, count: 2)
        let inbox = try app.call("GET", "/api2/mobile/notifications", json: [("qty", 2)])
        #expect(inbox.status == 200, "\(inbox)")
        #expect(inbox.value?.arrayValue?.count == 2)

        // The body is signed like any other: a wrong digest over a GET body is refused.
        let body = JSON.object([("client", .string(fixture.business.client))]).encodedString
        let pathOnly = MobileTestClient.digest(
            target: "/api2/mobile/users/profile", body: [], secret: fixture.business.secret)
        expectError(
            try app.call("GET", "/api2/mobile/users/profile", body: body, digest: pathOnly), 412, ["invalid_signature"])
    }

    @Test func theBodyWinsOverTheQuery() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        try fixture.news(to: app.userID!, count: 3)
        let response = try app.call(
            "GET", "/api2/mobile/notifications?client=\(fixture.business.client)&qty=1", json: [("qty", 3)])
        #expect(response.status == 200, "\(response)")
        #expect(response.value?.arrayValue?.count == 3)
    }
}
