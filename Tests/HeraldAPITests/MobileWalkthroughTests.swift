import HeraldModel
import HeraldTesting
import Testing

/// The README's walk-through, end to end over HTTP.
@Suite("Mobile API walk-through")
struct MobileWalkthroughTests {
    @Test func signUpListAndMarkRead() throws {
        let herald = try LiveHerald()
        let business = try herald.createBusiness()
        let app = herald.mobileClient(for: business, deviceID: "device-1")
        let signUp = try app.signUp(email: "ann@example.com", token: randomAPNsToken())
        #expect(signUp.status == 200, "\(signUp)")
        #expect(app.accessToken != nil)

        let inbox = try app.notifications()
        #expect(inbox.status == 200)
        let entries = try #require(inbox.json as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["kind"] as? String == "system")
        #expect(entries.first?["message"] as? String == "Hi Ann, welcome to Burger Co!")
        let id = try #require(entries.first?["id"] as? Int)

        let marked = try app.call(
            "PUT", "/api2/mobile/offers/mark_read",
            json: [
                ("event_type", "read_through_app"), ("user_notifications", .string("\(id)")),
            ])
        #expect(marked.status == 200, "\(marked)")
        #expect((marked.json as? [String: Any])?["badge"] as? Int == 0)
        let after = try #require(try app.notifications().json as? [[String: Any]])
        #expect(after.first?["read_at"] is String)
    }
}
