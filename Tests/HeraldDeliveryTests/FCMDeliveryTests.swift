import Foundation
import HeraldCrypto
import HeraldModel
import HeraldServer
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
