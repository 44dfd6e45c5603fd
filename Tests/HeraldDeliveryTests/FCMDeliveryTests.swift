import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// Herald → FCM and OAuth2 stand-ins.
@Suite("FCM delivery", .serialized)
struct FCMDeliveryTests {
    let standIn: StandIn
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys

    init() throws {
        standIn = try StandIn()
        let standIn = self.standIn
        herald = try LiveHerald { $0.deliver(to: standIn) }
        business = try herald.createBusiness()
        try herald.configureFCM(business, standIn: standIn)
    }

    private func signUp(_ email: String, token: String = randomFCMToken()) throws -> (MobileTestClient, String) {
        (try herald.signUpSettled(business, email: email, token: token, android: true), token)
    }

    @Test func newsArrivesAsAnFCMv1Message() throws {
        let (app, token) = try signUp("droid@example.com")
        let media = MediaAttachment(url: "https://cdn.example.com/burger.png", type: "png")
        let id = try #require(
            try herald.sendNews(business, to: [app.userID!], title: "New menu", body: "Try it", media: media).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.map(\.status) == [.delivered], "\(jobs)")
        #expect(jobs.first?.providerMessageID?.hasPrefix("projects/loyalty-app/messages/") == true)

        let sent = try standIn.fcmRequests().filter { $0["body"]?["message"]?["data"]?["n"]?.stringValue == String(id) }
        let message = try #require(sent.first?["body"]?["message"])
        #expect(message["token"]?.stringValue == token)
        #expect(message["notification"]?["title"]?.stringValue == "New menu")
        #expect(message["notification"]?["body"]?.stringValue == "Try it")
        #expect(message["notification"]?["image"]?.stringValue == media.url)
        #expect(message["android"]?["priority"]?.stringValue == "high")
        let data = try #require(message["data"]?.objectValue)
        #expect(data.allSatisfy { $0.value.stringValue != nil }, "FCM data values are strings")
        #expect(message["data"]?["u"]?.stringValue == String(app.userID!))
        #expect(message["data"]?["badge"]?.stringValue == "2")
        let tokenRequests = try standIn.tokenRequests()
        #expect(tokenRequests.count == 1, "one access token serves every send")
    }

    @Test func anAndroidInstallGetsACampaignAsTheGuideShowsIt() throws {
        // A notification message with data: Android draws it from `notification` while the app is in the background,
        // with no code of the app's, and `data.herald` carries the message and its id (what the app shows it once by).
        let token = randomFCMToken()
        let phone = herald.deviceClient()
        let registered = try phone.register(
            apiKey: business.apiKey,
            [
                ("platform", "android"), ("push_token", .string(token)), ("push_token_type", "fcm"),
                ("apns_environment", .null),
            ])
        try #require(registered.status == 201, "\(registered)")
        let message: JSON = [
            "headline": "Soup's on", "body": "Try the new tomato soup",
            "media": ["type": "image", "url": "https://cdn.example.com/soup.jpg"],
            "cta": ["label": "Order now", "url": "https://example.com/order"],
        ]
        try herald.launchCampaign(business, message: message)
        var received: JSON?
        let arrived = try Poll.until(timeout: .seconds(15), every: .milliseconds(20)) {
            received = try standIn.fcmRequests().first { $0["token"]?.stringValue == token }?["body"]
            return received != nil
        }
        try #require(arrived, "no FCM request for the install")
        let guide = try String(
            contentsOf: URL(fileURLWithPath: StandIn.repositoryRoot + "/docs/sdk.md"), encoding: .utf8)
        let android = try #require(guide.components(separatedBy: "\n## Android\n").dropFirst().first)
        let block = try #require(android.components(separatedBy: "```json\n").dropFirst().first)
        let shown = try JSON.parse(Array(block.prefix { $0 != "`" }.utf8))
        #expect(
            Self.comparable(received!) == Self.comparable(shown),
            "docs/sdk.md's Android payload is not what FCM received: \(received!.encodedString)")
        let data = try #require(received?["message"]?["data"]?.objectValue)
        #expect(data.allSatisfy { $0.value.stringValue != nil }, "FCM data values are strings")
    }

    /// `payload` with what differs from one send to the next (the token, the message's and campaign's ids) made
    /// equal, and the JSON text in `data`'s values read (still marked as text).
    static func comparable(_ payload: JSON) -> JSON {
        switch payload {
        case .object(let pairs):
            return .object(
                pairs.map { pair in
                    switch (pair.key, pair.value) {
                    case ("token", _), ("id", _), ("campaign_id", _): return (pair.key, "varies")
                    case ("ab", .string(let text)), ("herald", .string(let text)):
                        let parsed = (try? JSON.parse(Array(text.utf8))).map(comparable)
                        return (pair.key, ["JSON text": parsed ?? .string(text)])
                    default: return (pair.key, comparable(pair.value))
                    }
                })
        case .array(let values): return .array(values.map(comparable))
        default: return payload
        }
    }

    @Test func aCollapseIDGoesOutAsTheAndroidCollapseKey() throws {
        let (app, _) = try signUp("droid@example.com")
        let id = try #require(try herald.sendNews(business, to: [app.userID!], collapseID: "menu-of-the-day").first)
        #expect(try herald.waitForDeliveries(of: id).first?.status == .delivered)
        let message = try standIn.fcmRequests().first {
            $0["body"]?["message"]?["data"]?["n"]?.stringValue == String(id)
        }
        #expect(message?["body"]?["message"]?["android"]?["collapse_key"] == "menu-of-the-day")
    }

    @Test func accessTokenIsFetchedOnceForManySends() throws {
        let (app, _) = try signUp("droid@example.com")
        let ids = try (0..<8).flatMap { _ in try herald.sendNews(business, to: [app.userID!]) }
        for id in ids { #expect(try herald.waitForDeliveries(of: id).first?.status == .delivered) }
        #expect(try standIn.tokenRequests().count == 1)
        #expect(try standIn.stats()["fcm"]?["accepted"]?.int64Value == 9)
    }

    @Test func unregisteredTokensArePruned() throws {
        let (app, token) = try signUp("droid@example.com")
        try standIn.fcmRule(["token": .string(token), "error": "UNREGISTERED"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .pruned)
        #expect(jobs.first?.lastReason?.contains("UNREGISTERED") == true)
        #expect(try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.first?.token == nil)
    }

    @Test func invalidTokensArePruned() throws {
        let (app, token) = try signUp("droid@example.com")
        try standIn.fcmRule(["token": .string(token), "error": "INVALID_ARGUMENT"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.waitForDeliveries(of: id).first?.status == .pruned)
    }

    @Test func aSenderIDMismatchFailsWithoutPruning() throws {
        // What every token answers when the service account is another Firebase project's: a configuration
        // mistake, which must not cost the business its Android devices.
        let (app, token) = try signUp("droid@example.com")
        try standIn.fcmRule(["token": .string(token), "error": "SENDER_ID_MISMATCH"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .failed)
        #expect(jobs.first?.lastReason?.contains("SENDER_ID_MISMATCH") == true)
        #expect(try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.first?.token == token)
    }

    @Test func unavailableIsRetried() throws {
        let (app, _) = try signUp("droid@example.com")
        try standIn.fcmRule(["first_n": 2, "error": "UNAVAILABLE"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered)
        #expect(jobs.first?.attempts == 3)
    }

    @Test func anExpiredAccessTokenIsReplacedAndTheSendRepeated() throws {
        let (app, _) = try signUp("droid@example.com")
        try standIn.call("POST", "/fcm/expire_tokens")
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered, "\(jobs)")
        #expect(jobs.first?.attempts == 1)
        #expect(try standIn.tokenRequests().count == 2)
    }

    @Test func theAccessTokenIsRenewedAheadOfItsExpiryWithoutHoldingASend() throws {
        let clock = TestClock()
        let standIn = self.standIn
        // Tokens of 400 s: renewed from 200 s before their end (half their life, under the 5-minute margin).
        try standIn.call("POST", "/fcm/config", ["token_expires_in": 400])
        let herald = try LiveHerald(clock: clock.wallClock) { $0.deliver(to: standIn) }
        let business = try herald.createBusiness()
        try herald.configureFCM(business, standIn: standIn)
        let app = try herald.signUpSettled(business, email: "renew@example.com", token: randomFCMToken(), android: true)
        let before = try standIn.tokenRequests().count
        func send() throws -> String? {
            let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
            let jobs = try herald.waitForDeliveries(of: id)
            #expect(jobs.first?.status == .delivered && jobs.first?.attempts == 1, "\(jobs)")
            let sent = try standIn.fcmRequests().last {
                $0["body"]?["message"]?["data"]?["n"]?.stringValue == String(id)
            }
            return sent?["headers"]?["authorization"]?.stringValue
        }
        let first = try send()
        // Past the renewal point, before the end: the send goes at once with the current token, and one renewal
        // runs beside it.
        clock.advance(by: .seconds(210))
        let second = try send()
        #expect(second == first, "the send did not wait for the renewal")
        try Poll.until { try standIn.tokenRequests().count >= before + 1 }
        let third = try send()
        #expect(third != first, "the renewed token is used once it has come")
        #expect(try standIn.tokenRequests().count == before + 1, "one renewal, however many sends")
    }
}
