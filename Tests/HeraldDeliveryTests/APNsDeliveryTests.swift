import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldDeliveryPorts
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// Herald → APNs stand-in, over real HTTP/2 + TLS, checked as Apple checks.
@Suite("APNs delivery", .serialized)
struct APNsDeliveryTests {
    let standIn: StandIn
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys
    let keys: LiveHerald.APNsKeys

    init() throws {
        standIn = try StandIn()
        let standIn = self.standIn
        herald = try LiveHerald { $0.deliver(to: standIn) }
        business = try herald.createBusiness()
        keys = try herald.configureAPNs(business, standIn: standIn)
    }

    private func signUp(_ email: String, token: String = randomAPNsToken()) throws -> (MobileTestClient, String) {
        (try herald.signUpSettled(business, email: email, token: token), token)
    }

    @Test func aGiftCardUpdateGoesAsASilentLowPriorityPushThatCollapses() throws {
        let (app, _) = try signUp("ann@example.com")
        let response = try herald.pos(
            business, "POST", "/api/webhooks/gift_cards",
            json: ["uuid": "GC-1", "user_id": .int(app.userID!), "balance": 25.5])
        let object = try #require(response.json as? [String: Any])
        let id = Int64(try #require(object["notification_id"] as? Int))
        let card = try #require(object["gift_card_id"] as? Int)
        #expect(try herald.waitForDeliveries(of: id).map(\.status) == [.delivered])
        let request = try #require(try standIn.apnsRequests().last { $0["payload"]?["gc"] != nil })
        #expect(request["headers"]?["apns-push-type"] == "background")
        #expect(request["headers"]?["apns-priority"] == "5")
        #expect(request["headers"]?["apns-collapse-id"] == .string("gc-\(card)"))
        #expect(request["payload"] == ["aps": ["content-available": 1], "gc": .int(Int64(card))])
    }

    @Test func newsArrivesSignedAndShapedAsAppleRequires() throws {
        let (app, token) = try signUp("ann@example.com")
        let media = MediaAttachment(url: "https://cdn.example.com/burger.jpg", type: "jpg")
        let id = try #require(
            try herald.sendNews(business, to: [app.userID!], title: "New menu", body: "Try \"it\"!", media: media).first
        )
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.map(\.status) == [.delivered], "\(jobs)")
        #expect(jobs.first?.attempts == 1)

        let requests = try standIn.apnsRequests().filter { $0["payload"]?["n"]?.int64Value == id }
        let request = try #require(requests.first)
        #expect(request["status"]?.int64Value == 200)
        #expect(request["token"]?.stringValue == token)
        #expect(request["kid"]?.stringValue == keys.keyID)
        #expect(request["iss"]?.stringValue == keys.teamID)
        #expect(request["headers"]?["apns-topic"]?.stringValue == keys.topic)
        #expect(request["headers"]?["apns-push-type"]?.stringValue == "alert")
        #expect(request["headers"]?["apns-priority"]?.stringValue == "10")
        #expect(request["headers"]?["apns-expiration"]?.stringValue != nil)
        #expect(request["request_apns_id"]?.stringValue == jobs.first?.apnsID)
        let payload = try #require(request["payload"])
        #expect(payload["aps"]?["alert"]?["title"]?.stringValue == "New menu")
        #expect(payload["aps"]?["alert"]?["body"]?.stringValue == "Try \"it\"!")
        #expect(payload["aps"]?["sound"]?.stringValue == "default")
        // The sign-up entry is unread too: the badge counts both.
        #expect(payload["aps"]?["badge"]?.int64Value == 2)
        #expect(payload["aps"]?["mutable-content"]?.int64Value == 1)
        #expect(payload["ab"]?["att"]?["url"]?.stringValue == media.url)
        #expect(payload["ab"]?["att"]?["type"]?.stringValue == "jpg")
        #expect(payload["u"]?.int64Value == app.userID)
    }

    @Test func aCollapseIDGoesOutAsApnsCollapseID() throws {
        let (app, _) = try signUp("ann@example.com")
        let plain = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let collapsing = try #require(
            try herald.sendNews(business, to: [app.userID!], collapseID: "menu-of-the-day").first)
        try herald.waitForDeliveries(of: plain)
        try herald.waitForDeliveries(of: collapsing)
        let requests = try standIn.apnsRequests()
        let headers = { (id: Int64) in requests.first { $0["payload"]?["n"]?.int64Value == id }?["headers"] }
        #expect(headers(collapsing)?["apns-collapse-id"] == "menu-of-the-day")
        #expect(headers(plain)?["apns-collapse-id"] == nil, "sent only where set")
    }

    @Test func oneProviderTokenServesManySends() throws {
        let (app, _) = try signUp("ann@example.com")
        let ids = try (0..<10).flatMap { _ in try herald.sendNews(business, to: [app.userID!]) }
        for id in ids { try herald.waitForDeliveries(of: id) }
        let stats = try standIn.stats()
        #expect(stats["apns"]?["distinct_jwts"]?[keys.keyID]?.int64Value == 1)
        #expect(stats["apns"]?["accepted"]?.int64Value == 11)  // sign-up + 10 news
        #expect(stats["apns"]?["duplicate_apns_ids"]?.int64Value == 0)
    }

    @Test func deadTokensArePrunedAfterOneAttempt() throws {
        let (app, token) = try signUp("ann@example.com")
        try standIn.apnsRule(["token": .string(token), "status": 410, "reason": "Unregistered"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .pruned)
        #expect(jobs.first?.attempts == 1)
        #expect(jobs.first?.lastReason?.contains("Unregistered") == true)
        #expect(
            try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.allSatisfy { $0.token == nil }
        )
        // Nothing more is sent to that device.
        let next = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.application.store.read { try $0.deliveries.all(notificationID: next) }.isEmpty)
    }

    @Test func aTokenRegisteredAgainAfterApplesTimestampStays() throws {
        let (app, token) = try signUp("ann@example.com")
        // Apple saw the token die an hour ago; the app registered it again since.
        let anHourAgo = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        try standIn.apnsRule([
            "token": .string(token), "status": 410, "reason": "Unregistered", "timestamp_ms": .int(anHourAgo),
            "times": 1,
        ])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.waitForDeliveries(of: id).first?.status == .pruned)
        #expect(try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.first?.token == token)
    }

    @Test func aKeyReplacedOnAnotherNodeIsTakenUpWhenAppleRefusesTheOldOne() throws {
        // Two nodes share one database; the operator replaced the key through the other, so this node still
        // holds the old one, and Apple (the stand-in) now knows only the new one.
        let secret = String(repeating: "ab", count: 32)
        let herald = try LiveHerald { [standIn] in
            $0.deliver(to: standIn)
            $0.secretKey = secret
        }
        let business = try herald.createBusiness()
        let keys = try herald.configureAPNs(business, standIn: standIn)
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        let first = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.waitForDeliveries(of: first).first?.status == .delivered)

        // A new key has a new id; the old one Apple no longer honours (revoked).
        let newKey = P256PrivateKey.generate()
        try standIn.registerAPNsKey(keyID: "NEWKEY1234", teamID: keys.teamID, topic: keys.topic, key: newKey)
        try standIn.registerAPNsKey(
            keyID: keys.keyID, teamID: keys.teamID, topic: keys.topic, key: P256PrivateKey.generate())
        let stored = try #require(
            try herald.application.store.read { try $0.credentials.find(businessID: business.id, platform: .apns) })
        var settings = stored.settings
        settings["key_id"] = "NEWKEY1234"
        // A later version than the stored one, even within its millisecond.
        let version = max(WallClock.system.now(), stored.updatedAt.adding(.milliseconds(1)))
        let replaced = PushCredential(
            businessID: business.id, platform: .apns, settings: settings,
            sealedKey: try SecretSealer(key: try #require(Hex.decode(secret))).seal(
                Array(newKey.pemRepresentation.utf8), purpose: .apnsKey),
            updatedAt: version)
        try herald.application.store.transaction { try $0.credentials.save(replaced) }

        let second = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: second)
        #expect(jobs.first?.status == .delivered, "\(jobs)")
        #expect(jobs.first?.attempts == 2, "refused with the old key once, then sent with the new one")
        #expect(
            try herald.application.store.deliveryQueue.brokenCredentials().isEmpty,
            "the new key is not the one Apple refused")
    }

    @Test func aKeyThatWillNotOpenParksItsPushesWithoutBreakingTheCredential() throws {
        // The stored key was sealed with another HERALD_SECRET_KEY (an operator changed it): not Apple's refusal,
        // and nothing a retry mends. The push waits, its attempts kept, and the credential is not marked broken.
        let (app, _) = try signUp("ann@example.com")
        var stored = try #require(
            try herald.application.store.read { try $0.credentials.find(businessID: business.id, platform: .apns) })
        stored.sealedKey = try SecretSealer(key: Array(repeating: 7, count: 32)).seal(
            Array(P256PrivateKey.generate().pemRepresentation.utf8), purpose: .apnsKey)
        let sealedWithAnotherKey = stored
        try herald.application.store.transaction { try $0.credentials.save(sealedWithAnotherKey) }
        herald.application.delivery?.credentialChanged(businessID: business.id, platform: .apns)
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let job = try CommitWaiter(herald.application.store).value(
            timeout: .seconds(10), until: { $0?.lastReason != nil }
        ) {
            try $0.read { try $0.deliveries.all(notificationID: id) }.first
        }
        #expect(job?.status == .queued, "\(String(describing: job))")
        #expect(job?.lastReason?.contains("cannot be opened") == true, "\(String(describing: job))")
        #expect(job?.attempts == 0, "waiting costs no attempt")
        #expect(try herald.application.store.deliveryQueue.brokenCredentials().isEmpty)
    }

    @Test func aTokenNotForTheTopicFailsWithoutPruning() throws {
        // What every token answers when the credential's topic is mistyped: a configuration mistake, which must
        // not cost the business its iPhones.
        let (app, token) = try signUp("ann@example.com")
        try standIn.apnsRule(["token": .string(token), "status": 400, "reason": "DeviceTokenNotForTopic"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .failed)
        #expect(jobs.first?.lastReason?.contains("DeviceTokenNotForTopic") == true)
        #expect(try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.first?.token == token)
    }

    @Test func badDeviceTokenIsPruned() throws {
        let (app, token) = try signUp("ann@example.com")
        try standIn.apnsRule(["token": .string(token), "status": 400, "reason": "BadDeviceToken"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.waitForDeliveries(of: id).first?.status == .pruned)
        #expect(try herald.application.store.read { try $0.devices.all(userID: app.userID!) }.first?.token == nil)
    }

    @Test func serviceUnavailableIsRetriedUntilItSucceeds() throws {
        let (app, _) = try signUp("ann@example.com")
        try standIn.apnsRule(["first_n": 2, "status": 503, "reason": "ServiceUnavailable"])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered)
        #expect(jobs.first?.attempts == 3)
        let sent = try standIn.apnsRequests().filter { $0["payload"]?["n"]?.int64Value == id }
        #expect(sent.map { $0["status"]?.int64Value } == [503, 503, 200])
        #expect(
            Set(sent.compactMap { $0["request_apns_id"]?.stringValue }).count == 1,
            "every attempt carries the same apns-id")
    }

    @Test func retryAfterIsHonoured() throws {
        let (app, _) = try signUp("ann@example.com")
        try standIn.apnsRule(["first_n": 1, "status": 429, "reason": "TooManyRequests", "retry_after": 2])
        let started = Date()
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered)
        let sent = try standIn.apnsRequests().filter { $0["payload"]?["n"]?.int64Value == id }
        let times = sent.compactMap { $0["time"]?.doubleValue }
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= 1.9, "the retry waited for Retry-After") }
        #expect(Date().timeIntervalSince(started) >= 1.9)
    }

    @Test func payloadsTooLargeAreRefusedBeforeSending() throws {
        let (app, _) = try signUp("ann@example.com")
        // The admin API already refuses news that can't fit…
        let refused = try herald.admin(
            "POST", "/api/admin/businesses/\(business.id)/notifications",
            json: JSON.object([
                ("user_ids", [.int(app.userID!)]), ("title", "Big"),
                ("body", .string(String(repeating: "🍔", count: 1500))),
            ]).encodedString)
        #expect(refused.status == 422, "\(refused)")
        #expect(refused.text.contains("4096"))
        // …and whatever reaches the provider anyway (another event, a later template) is refused before sending.
        let before = try standIn.stats()["apns"]?["requests"]?.int64Value ?? 0
        let big = NotificationDraft(
            businessID: business.id, userID: app.userID!, kind: .news, event: "news", title: "Big",
            body: String(repeating: "🍔", count: 1500))
        let entry = try herald.application.store.transaction {
            try NotificationService().publish(big, in: $0, at: WallClock.system.now())
        }
        let jobs = try herald.waitForDeliveries(of: entry.id)
        #expect(jobs.first?.status == .failed)
        #expect(jobs.first?.lastReason?.contains("4096") == true)
        let after = try standIn.stats()["apns"]?["requests"]?.int64Value ?? 0
        #expect(after == before)
        #expect(try standIn.apnsRequests().allSatisfy { $0["payload"]?["n"]?.int64Value != entry.id })
    }

    @Test func aRefusedKeyParksTheJobsUntilItIsReplaced() throws {
        let (app, _) = try signUp("ann@example.com")
        // Replace the key with one Apple doesn't know.
        let unknown = P256PrivateKey.generate()
        let response = try herald.admin(
            "PUT", "/api/admin/businesses/\(business.id)/apns",
            json: JSON.object([
                ("key_p8", .string(unknown.pemRepresentation)), ("key_id", "ZZZZZZZZZZ"),
                ("team_id", .string(keys.teamID)),
                ("topic", .string(keys.topic)), ("environment", "sandbox"),
            ]).encodedString)
        #expect(response.status == 200)
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let waiting = try herald.waitForDeliveries(of: id) { jobs in
            jobs.first?.lastReason?.contains("credential broken") == true
        }
        #expect(waiting.first?.status == .queued, "jobs wait rather than fail")
        #expect(waiting.first?.attempts == 0)
        let shown = try herald.admin("GET", "/api/admin/businesses/\(business.id)")
        #expect(shown.text.contains("\"status\":\"broken\""), "\(shown)")
        #expect(shown.text.contains("InvalidProviderToken"))
        let metrics = try herald.client().request("GET", "/metrics").text
        #expect(metrics.contains("herald_push_credentials_broken 1"))

        // The operator fixes the key: the waiting job goes out.
        try herald.configureAPNs(business, standIn: standIn, keyID: "KEY7654321")
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered, "\(jobs)")
        #expect(
            !(try herald.admin("GET", "/api/admin/businesses/\(business.id)").text.contains("\"status\":\"broken\"")))
    }

    @Test func pushesWaitForCredentialsAndGoOutOnceTheyAreSet() throws {
        let newcomer = try herald.createBusiness(name: "No Keys Yet")
        let app = herald.mobileClient(for: newcomer, deviceID: "device-\(UUID().uuidString)")
        #expect(try app.signUp(email: "early@example.com", token: randomAPNsToken()).status == 200)
        let id = try #require(try herald.sendNews(newcomer, to: [app.userID!]).first)
        let waiting = try herald.waitForDeliveries(of: id) { jobs in jobs.first?.lastReason != nil }
        #expect(waiting.first?.status == .queued, "\(waiting)")
        #expect(waiting.first?.lastReason?.contains("no APNs credentials") == true)
        try herald.configureAPNs(
            newcomer, standIn: standIn, keyID: "LATE123456", teamID: "TEAM999999", topic: "com.example.late")
        #expect(try herald.waitForDeliveries(of: id).first?.status == .delivered)
    }

    @Test func connectionResetsAndGoawayAreRetriedOnNewConnections() throws {
        let (app, _) = try signUp("ann@example.com")
        try standIn.apnsRule(["reset_first_n": 1])
        let reset = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: reset)
        #expect(jobs.first?.status == .delivered, "\(jobs)")
        #expect(jobs.first?.attempts == 2)
        try standIn.call("DELETE", "/apns/rules")
        try standIn.apnsRule(["goaway_after": 1, "times": 1])
        let ids = try (0..<3).flatMap { _ in try herald.sendNews(business, to: [app.userID!]) }
        for id in ids { #expect(try herald.waitForDeliveries(of: id).first?.status == .delivered) }
        #expect(try standIn.stats()["apns"]?["goaways"]?.int64Value ?? 0 >= 1)
    }

    /// A GOAWAY storm: every connection is sent away after 400 streams, and one push in a hundred is answered 503
    /// once. Every push ends delivered, and Apple (the stand-in) accepts each apns-id exactly once: the streams a
    /// GOAWAY left unprocessed are sent again on a new connection, and a 503 is retried with the same apns-id.
    @Test func aGoAwayStormLosesNothingAndDeliversEachPushOnce() throws {
        let total = 3_000
        let unlucky = "0bad"  // one token in a hundred starts with it
        let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let userIDs = try herald.application.store.transaction { tx in
            try (0..<total).map { index in
                let user = try tx.users.insert(
                    NewUser(
                        businessID: business.id, email: "storm\(index)@example.com", passwordHash: "x",
                        firstName: "S", lastName: "\(index)"),
                    at: now)
                var (device, _) = try tx.devices.findOrInsert(
                    businessID: business.id, key: "storm-\(index)", userID: user.id, platform: .apns, at: now)
                let token = randomAPNsToken()
                device.token = index % 100 == 0 ? unlucky + token.dropFirst(unlucky.count) : token
                device.tokenUpdatedAt = now
                try tx.devices.save(device)
                return user.id
            }
        }
        try standIn.apnsRule(["goaway_after": 400, "error_code": 0])
        try standIn.apnsRule(["status": 503, "token_prefix": .string(unlucky), "first_n": .int(Int64(total / 100))])
        let ids = try herald.sendNews(business, to: userIDs)
        #expect(ids.count == total)

        var accepted: Int64 = 0
        try Poll.until(timeout: .seconds(120), every: .milliseconds(50)) {
            accepted = try standIn.stats()["apns"]?["distinct_accepted_apns_ids"]?.int64Value ?? 0
            return accepted >= Int64(total)
        }
        let stats = try #require(try standIn.stats()["apns"])
        #expect(accepted == Int64(total), "every push reached Apple: \(stats)")
        #expect(stats["duplicate_apns_ids"]?.int64Value == 0, "none twice: \(stats)")
        #expect(stats["goaways"]?.int64Value ?? 0 >= 5, "a storm: \(stats)")
        #expect(stats["rejected_by_status"]?["503"]?.int64Value == Int64(total / 100), "\(stats)")
        // And the store says so: every job delivered, the 503'd ones on their second attempt.
        let statuses = try CommitWaiter(herald.application.store).value(
            timeout: .seconds(30), until: { $0[.delivered] == total }
        ) { store in
            var statuses: [DeliveryStatus: Int] = [:]
            let jobs = try store.read { tx in try ids.flatMap { try tx.deliveries.all(notificationID: $0) } }
            for job in jobs { statuses[job.status, default: 0] += 1 }
            return statuses
        }
        #expect(statuses == [.delivered: total], "\(statuses)")
    }

    @Test func aDeviceLoggedOutReceivesNothing() throws {
        let (app, _) = try signUp("ann@example.com")
        let logout = try app.call("DELETE", "/api2/mobile/users/logout", json: [])
        #expect(logout.status == 200)
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        #expect(try herald.application.store.read { try $0.deliveries.all(notificationID: id) }.isEmpty)
    }
}

/// The provider token's life: reused, refreshed at 45 minutes, replaced at once when Apple says it expired.
@Suite("APNs provider tokens", .serialized)
struct APNsProviderTokenTests {
    @Test func anExpiredProviderTokenIsReplacedAtOnce() throws {
        let standIn = try StandIn()
        let clock = TestClock()
        let herald = try LiveHerald(clock: clock.wallClock) { $0.deliver(to: standIn) }
        let business = try herald.createBusiness()
        let keys = try herald.configureAPNs(business, standIn: standIn)
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        // 33 minutes later by Herald's clock (no refresh due yet), Apple's clock is 62 minutes on: the token is stale.
        clock.advance(by: .seconds(2000))
        try standIn.call("POST", "/clock", ["offset_seconds": 3700])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: id)
        #expect(jobs.first?.status == .delivered, "\(jobs)")
        #expect(jobs.first?.attempts == 1, "re-signed and resent within the same attempt")
        let sent = try standIn.apnsRequests().filter { $0["request_apns_id"]?.stringValue == jobs.first?.apnsID }
        #expect(sent.map { $0["reason"]?.stringValue } == ["ExpiredProviderToken", nil])
        #expect(try standIn.stats()["apns"]?["distinct_jwts"]?[keys.keyID]?.int64Value == 2)
    }

    @Test func theTokenIsRefreshedBeforeAnHourOnItsOwn() throws {
        let standIn = try StandIn()
        let clock = TestClock()
        let herald = try LiveHerald(clock: clock.wallClock) { $0.deliver(to: standIn) }
        let business = try herald.createBusiness()
        let keys = try herald.configureAPNs(business, standIn: standIn)
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: randomAPNsToken())
        clock.advance(by: .seconds(46 * 60))
        try standIn.call("POST", "/clock", ["offset_seconds": 2760])
        let id = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let sentJobs = try herald.waitForDeliveries(of: id)
        #expect(sentJobs.first?.status == .delivered)
        let sent = try standIn.apnsRequests().filter { $0["request_apns_id"]?.stringValue == sentJobs.first?.apnsID }
        #expect(sent.map { $0["status"]?.int64Value } == [200], "no 403 first: refreshed ahead of time")
        #expect(try standIn.stats()["apns"]?["distinct_jwts"]?[keys.keyID]?.int64Value == 2)
    }
}
