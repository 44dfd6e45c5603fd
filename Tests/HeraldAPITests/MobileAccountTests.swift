import Foundation
import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The mobile API's accounts: sign-up, login, profile, update, logout, and the push tokens they carry
/// (as Punchh apps send them: `apn_token` / `gcm_token` at sign-up, by profile update, `""` to clear).
@Suite("Mobile API: accounts and push tokens")
struct MobileAccountTests {
    func signUp(_ fixture: ServerFixture, _ user: JSON, headers: [(String, String)] = []) throws
        -> TestHTTPClient.Response
    {
        let body = JSON.object([("client", .string(fixture.business.client)), ("user", user)]).encodedString
        return try fixture.app().call("POST", "/api2/mobile/users", body: body, headers: headers)
    }

    // MARK: - Sign-up

    @Test func signUpAnswersTheSessionAndTheUser() throws {
        let fixture = try ServerFixture()
        let app = fixture.app()
        let response = try app.signUp(email: "Ann@Example.com", firstName: "Ann")
        #expect(response.status == 200, "\(response)")
        #expect(response.isJSON)
        let body = try #require(response.value)
        let session = try #require(body["access_token"])
        let token = try #require(session["token"]?.stringValue)
        #expect(token.count >= 32)
        let lifetime = fixture.herald.application.configuration.accessTokenLifetime.components.seconds
        #expect(session["seconds_to_expire"] == .int(lifetime))
        #expect(session["created_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)

        let user = try #require(body["user"])
        let userID = try #require(user["user_id"]?.int64Value)
        #expect(user["user_id"] == .int(userID))
        #expect(user["email"] == "ann@example.com")
        #expect(user["first_name"] == "Ann")
        #expect(user["last_name"] == "Lee")
        #expect(user["phone"] == .null)
        #expect(user["points"] == .int(0))
        #expect(user["created_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
        #expect(
            try fixture.store.read { try $0.users.find(businessID: fixture.business.id, id: userID) }?.email
                == "ann@example.com")

        // The token works at once.
        let profile = try app.profile()
        #expect(profile.status == 200)
        #expect(profile.value?["user_id"] == .int(userID))
    }

    @Test func aTakenEmailIs422InPunchhWords() throws {
        let fixture = try ServerFixture()
        _ = try fixture.signedUp("ann@example.com")
        let again = try fixture.app().signUp(email: "ann@example.com")
        #expect(again.status == 422)
        #expect(again.text == #"{"errors":{"email":["has already been taken"]}}"#)
    }

    @Test(arguments: ["ANN@example.com", "ann@EXAMPLE.COM", " ann@example.com ", "Ann@Example.Com"])
    func emailsAreCaseInsensitive(_ variant: String) throws {
        let fixture = try ServerFixture()
        let first = try fixture.signedUp("ann@example.com")
        expectError(try fixture.app().signUp(email: variant), 422, "email", "has already been taken")
        let login = fixture.app()
        #expect(try login.logIn(email: variant).status == 200)
        #expect(login.userID == first.userID)
    }

    @Test(arguments: [
        "not-an-email", "ann@", "@example.com", "ann@example", "ann@@example.com", "ann @example.com", "ann@.com",
        "ann@example.com.", "a\u{0}b@example.com\u{0}x y",
    ])
    func anInvalidEmailIs422(_ email: String) throws {
        let fixture = try ServerFixture()
        expectError(try fixture.app().signUp(email: email), 422, "email", "is invalid")
    }

    @Test func aMissingEmailOrPasswordIs422CantBeBlank() throws {
        let fixture = try ServerFixture()
        let noEmail = JSON.object([
            ("first_name", "Ann"), ("password", "password123"), ("password_confirmation", "password123"),
        ])
        expectError(try signUp(fixture, noEmail), 422, "email", "can't be blank")
        expectError(try signUp(fixture, signUpUser(email: "")), 422, "email", "can't be blank")
        let noPassword = JSON.object([("email", "ann@example.com")])
        expectError(try signUp(fixture, noPassword), 422, "password", "can't be blank")
    }

    @Test func aShortPasswordIs422() throws {
        let fixture = try ServerFixture()
        expectError(
            try fixture.app().signUp(email: "ann@example.com", password: "short12"), 422, "password",
            "is too short (minimum is 8 characters)")
        // Eight characters are enough.
        #expect(try fixture.app().signUp(email: "ann@example.com", password: "exactly8").status == 200)
    }

    @Test func aMismatchedConfirmationIs422() throws {
        let fixture = try ServerFixture()
        let response = try signUp(
            fixture, signUpUser(email: "ann@example.com", password: "password123", confirmation: "password124"))
        expectError(response, 422, "password_confirmation", "doesn't match Password")
        #expect(try fixture.app().logIn(email: "ann@example.com").status == 422)
    }

    @Test func severalErrorsAreAnsweredAtOnce() throws {
        let fixture = try ServerFixture()
        let user = signUpUser(
            email: "nope", password: "short", confirmation: "other", extra: [("phone", "12"), ("apn_token", "xyz")])
        let response = try signUp(fixture, user)
        expectError(response, 422, ["email", "password", "password_confirmation", "phone", "apn_token"])
        #expect(response.errorFields?["email"] == ["is invalid"])
        #expect(response.errorFields?["password"] == ["is too short (minimum is 8 characters)"])
    }

    @Test func theSameEmailMayJoinAnotherBusiness() throws {
        let fixture = try ServerFixture()
        let ours = try fixture.signedUp("ann@example.com")
        let other = try fixture.herald.createBusiness(name: "Taco Co")
        let theirs = fixture.herald.mobileClient(for: other)
        #expect(try theirs.signUp(email: "ann@example.com").status == 200)
        #expect(theirs.userID != ours.userID)
    }

    @Test func aTakenPhoneIs422() throws {
        let fixture = try ServerFixture()
        #expect(
            try signUp(fixture, signUpUser(email: "ann@example.com", extra: [("phone", "555-123-4567")])).status == 200)
        let response = try signUp(fixture, signUpUser(email: "bob@example.com", extra: [("phone", "(555) 123 4567")]))
        expectError(response, 422, "phone", "has already been taken")
    }

    @Test func userFieldsMayAlsoSitAtTheTopLevel() throws {
        let fixture = try ServerFixture()
        let body = JSON.object([
            ("client", .string(fixture.business.client)), ("email", "ann@example.com"), ("password", "password123"),
            ("password_confirmation", "password123"), ("first_name", "Ann"),
        ]).encodedString
        let response = try fixture.app().call("POST", "/api2/mobile/users", body: body)
        #expect(response.status == 200, "\(response)")
    }

    // MARK: - Login

    @Test func loginWithTheRightPasswordStartsANewSession() throws {
        let fixture = try ServerFixture()
        let signedUp = try fixture.signedUp("ann@example.com")
        let app = fixture.app()
        let response = try app.logIn(email: "ann@example.com")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["user"]?["user_id"] == .int(signedUp.userID!))
        #expect(response.value?["access_token"]?["seconds_to_expire"]?.int64Value ?? 0 > 0)
        #expect(app.accessToken != nil && app.accessToken != signedUp.accessToken)
        // Both sessions work.
        #expect(try app.profile().status == 200)
        #expect(try signedUp.profile().status == 200)
    }

    @Test func aWrongPasswordAndAnUnknownEmailAnswerTheSame422() throws {
        let fixture = try ServerFixture()
        _ = try fixture.signedUp("ann@example.com")
        let wrong = try fixture.app().logIn(email: "ann@example.com", password: "password124")
        let unknown = try fixture.app().logIn(email: "nobody@example.com")
        #expect(wrong.status == 422)
        #expect(wrong.text == #"{"errors":{"base":["Incorrect information submitted. Please retry."]}}"#)
        #expect(unknown.status == wrong.status)
        #expect(unknown.text == wrong.text)
    }

    @Test func loginWithoutEmailOrPasswordIs422() throws {
        let fixture = try ServerFixture()
        _ = try fixture.signedUp("ann@example.com")
        let app = fixture.app()
        expectError(
            try app.call("POST", "/api2/mobile/users/login", json: [("user", ["email": "ann@example.com"])]), 422,
            ["base"])
        expectError(
            try app.call("POST", "/api2/mobile/users/login", json: [("user", ["password": "password123"])]), 422,
            ["base"])
        expectError(try app.call("POST", "/api2/mobile/users/login", json: []), 422, ["base"])
        #expect(app.accessToken == nil)
    }

    // MARK: - Profile and update

    @Test func theProfileShowsTheSignedInUser() throws {
        let fixture = try ServerFixture()
        let ann = try fixture.signedUp("ann@example.com", firstName: "Ann")
        let bob = try fixture.signedUp("bob@example.com", firstName: "Bob")
        #expect(try ann.profile().value?["first_name"] == "Ann")
        #expect(try bob.profile().value?["first_name"] == "Bob")
        #expect(try bob.profile().value?["email"] == "bob@example.com")
        #expect(try bob.profile().value?["password_hash"] == nil)
        #expect(try !bob.profile().text.contains("scrypt"))
    }

    @Test func updateChangesNames() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let response = try app.update([("first_name", "Annie"), ("last_name", "Leigh")])
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["first_name"] == "Annie")
        #expect(response.value?["last_name"] == "Leigh")
        let profile = try app.profile()
        #expect(profile.value?["first_name"] == "Annie")
        #expect(profile.value?["last_name"] == "Leigh")
        #expect(profile.value?["email"] == "ann@example.com")
        // A field left out stays.
        #expect(try app.update([("last_name", "Lee")]).value?["first_name"] == "Annie")
    }

    @Test func updateChangesTheEmail() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        _ = try fixture.signedUp("bob@example.com")
        let response = try app.update([("email", "Annie@Example.com")])
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["email"] == "annie@example.com")
        #expect(try fixture.app().logIn(email: "annie@example.com").status == 200)
        #expect(try fixture.app().logIn(email: "ann@example.com").status == 422)

        expectError(try app.update([("email", "BOB@example.com")]), 422, "email", "has already been taken")
        expectError(try app.update([("email", "bad")]), 422, "email", "is invalid")
        expectError(try app.update([("email", "")]), 422, "email", "can't be blank")
        #expect(try app.profile().value?["email"] == "annie@example.com")
    }

    @Test func updateChangesAndClearsThePhone() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let set = try app.update([("phone", "+1 (555) 123-4567")])
        #expect(set.status == 200, "\(set)")
        #expect(set.value?["phone"] == "15551234567")
        expectError(try app.update([("phone", "12")]), 422, "phone", "is invalid")
        expectError(try app.update([("phone", "555-CALL-NOW")]), 422, "phone", "is invalid")
        #expect(try app.profile().value?["phone"] == "15551234567")
        let cleared = try app.update([("phone", "")])
        #expect(cleared.status == 200)
        #expect(cleared.value?["phone"] == .null)
    }

    @Test func aPasswordChangeNeedsTheCurrentPassword() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        expectError(
            try app.update([("password", "newpassword1"), ("password_confirmation", "newpassword1")]), 422,
            "current_password", "can't be blank")
        expectError(
            try app.update([
                ("password", "newpassword1"), ("password_confirmation", "newpassword1"),
                ("current_password", "wrong-one"),
            ]),
            422, "current_password", "is invalid")
        expectError(
            try app.update([("password", "short"), ("current_password", "password123")]), 422,
            "password", "is too short (minimum is 8 characters)")
        expectError(
            try app.update([
                ("password", "newpassword1"), ("password_confirmation", "newpassword2"),
                ("current_password", "password123"),
            ]),
            422, "password_confirmation", "doesn't match Password")
        #expect(try fixture.app().logIn(email: "ann@example.com", password: "password123").status == 200)

        let changed = try app.update([
            ("password", "newpassword1"), ("password_confirmation", "newpassword1"),
            ("current_password", "password123"),
        ])
        #expect(changed.status == 200, "\(changed)")
        #expect(try fixture.app().logIn(email: "ann@example.com", password: "newpassword1").status == 200)
        #expect(try fixture.app().logIn(email: "ann@example.com", password: "password123").status == 422)
    }

    @Test func aFailedUpdateChangesNothing() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        expectError(try app.update([("first_name", "Annie"), ("email", "bad")]), 422, ["email"])
        #expect(try app.profile().value?["first_name"] == "Ann")
    }

    // MARK: - Logout

    @Test func logoutRevokesTheToken() throws {
        let fixture = try ServerFixture()
        let app = try fixture.signedUp("ann@example.com")
        let response = try app.logOut()
        #expect(response.status == 200, "\(response)")
        #expect(response.isJSON)
        expectError(try app.logOut(), 401, ["base"])
        expectError(try app.profile(), 401, ["base"])
        // Logging in again works.
        #expect(try app.logIn(email: "ann@example.com").status == 200)
        #expect(try app.profile().status == 200)
    }
}

/// Statuses collected from several threads.
final class Statuses: @unchecked Sendable {
    let lock = NSLock()
    var list: [String] = []

    func add(_ status: String) {
        lock.lock()
        list.append(status)
        lock.unlock()
    }

    var values: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
