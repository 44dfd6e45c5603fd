import Foundation
import HeraldModel
import HeraldTesting
import Testing

/// The code mailed to prove an imported customer's email, against someone guessing it: a few tries of each code, from
/// however many addresses, then a new code is needed; a few codes an hour; each expires.
@Suite("Email codes")
struct EmailCodeTests {
    /// A Herald with one imported customer, `nine@example.com`, whose import the business does not trust.
    struct World {
        let fixture: ServerFixture
        let mailer = RecordingMailer()
        let email = "nine@example.com"

        init(clock: WallClock = .system) throws {
            let mailer = mailer
            fixture = try ServerFixture(clock: clock) { $0.mailer = mailer }
            let imported = try AudienceAPITests.importLines(fixture, [#"{"external_id":"crm-9","email":"\#(email)"}"#])
            try #require(imported.value?["created"] == 1, "\(imported)")
        }

        /// A sign-up as the customer, with `code` (none: asking for one), from `address`.
        func signUp(code: String? = nil, from address: String = "127.0.0.1") throws -> TestHTTPClient.Response {
            var user: [(key: String, value: JSON)] = [
                ("email", .string(email)), ("password", "their-own-1"), ("password_confirmation", "their-own-1"),
            ]
            if let code { user.append(("email_code", .string(code))) }
            let app = fixture.app()
            app.http.sourceAddress = address
            return try app.call("POST", "/api2/mobile/users", json: [("user", .object(user))])
        }

        /// Asks for a code; the one mailed.
        func newCode() throws -> String {
            expectError(try signUp(), 422, ["email_code"])
            return try #require(mailer.code(to: email), "\(mailer.sent)")
        }
    }

    /// A code that is not `code`.
    static func wrong(_ code: String, _ index: Int) -> String {
        String(format: "%08d", (Int(code)! + 1 + index) % 100_000_000)
    }

    @Test(.bug(id: "issue-40-4", "an email code could be guessed at 2,276 tries a second, none refused"))
    func aCodeIsTriedFiveTimesAtMostFromAnyNumberOfAddresses() throws {
        let world = try World()
        let code = try world.newCode()
        var answers: [String] = []
        for index in 0..<5 {
            let response = try world.signUp(code: Self.wrong(code, index), from: "127.0.0.\(10 + index)")
            #expect(response.status == 422, "\(response)")
            answers.append(response.errorFields?["email_code"]?.first ?? "\(response)")
        }
        #expect(
            Array(answers.prefix(4))
                == (1...4).reversed().map {
                    "is wrong: the code mailed may be tried \($0) more time\($0 == 1 ? "" : "s")"
                })
        #expect(answers.last == "has expired or was tried too often: sign up without it for a new one")
        // Now even the right code is refused: a new one is needed.
        expectError(
            try world.signUp(code: code, from: "127.0.0.99"), 422, "email_code",
            "has expired or was tried too often: sign up without it for a new one")
        let next = try world.newCode()
        let signedUp = try world.signUp(code: next)
        #expect(signedUp.status == 200, "\(signedUp)")
        // Claimed: the email is taken like any other, code or not.
        expectError(try world.signUp(code: next), 422, "email", "has already been taken")
    }

    @Test(.bug(id: "issue-40-4", "an email code was good for up to 30 minutes"))
    func aCodeExpiresAfterFifteenMinutes() throws {
        let clock = TestClock()
        let world = try World(clock: clock.wallClock)
        let code = try world.newCode()
        clock.advance(by: .seconds(15 * 60))
        expectError(
            try world.signUp(code: code), 422, "email_code",
            "has expired or was tried too often: sign up without it for a new one")
        #expect(try world.signUp(code: try world.newCode()).status == 200)
    }

    @Test(.bug(id: "issue-40-4", "codes could be asked for without end: five tries each, without end"))
    func fiveCodesAnHourAtMost() throws {
        let clock = TestClock()
        let world = try World(clock: clock.wallClock)
        var codes: [String] = []
        for _ in 0..<5 {
            codes.append(try world.newCode())
            clock.advance(by: .seconds(60))
        }
        let refused = try world.signUp()
        expectError(refused, 429, ["email_code"])
        #expect(refused.header("retry-after") == String(3600 - 5 * 60), "\(refused.headers)")
        #expect(world.mailer.sent.count == 5, "no sixth mail")
        // Each new code replaced the last: an earlier one is a wrong guess.
        expectError(
            try world.signUp(code: codes[3]), 422, "email_code", "is wrong: the code mailed may be tried 4 more times")
        // An hour after the first, a new code may be asked for.
        clock.advance(by: .seconds(3600 - 5 * 60))
        #expect(try world.signUp(code: try world.newCode()).status == 200)
    }
}
