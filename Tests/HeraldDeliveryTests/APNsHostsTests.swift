import Foundation
import HeraldAPNs
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// Apple's two hosts, played by the stand-in's two APNs ports: a development build's token is known to the sandbox
/// host only, an App Store build's to the production host only, and one business's key reaches both.
@Suite("APNs hosts", .serialized)
struct APNsHostsTests {
    let standIn: StandIn
    let herald: LiveHerald
    let business: LiveHerald.BusinessKeys

    /// A business whose credential says `production`: the host of the devices that do not say theirs.
    init() throws {
        standIn = try StandIn()
        let standIn = self.standIn
        herald = try LiveHerald { $0.deliver(to: standIn) }
        business = try herald.createBusiness()
        try herald.configureAPNs(business, standIn: standIn, environment: "production")
    }

    static let message: JSON = ["headline": "Soup's on", "body": "Try the new tomato soup"]

    /// Registers an iPhone install of `business` with `token`, saying `environment` (nil: saying none).
    @discardableResult
    func install(token: String, environment: String?) throws -> DeviceTestClient {
        let phone = herald.deviceClient()
        let response = try phone.register(
            apiKey: business.apiKey,
            [("push_token", .string(token)), ("apns_environment", environment.map(JSON.string) ?? .null)])
        try #require(response.status == 201, "\(response)")
        return phone
    }

    /// What the stand-in answered `token`, host by host, once `count` requests for it arrived.
    func answers(_ token: String, count: Int) throws -> [String] {
        var seen: [String] = []
        let arrived = try Poll.until(timeout: .seconds(15), every: .milliseconds(20)) {
            seen = try standIn.apnsRequests().filter { $0["token"]?.stringValue == token }.map {
                "\($0["environment"]?.stringValue ?? "?") \($0["status"]?.int64Value ?? 0)"
            }
            return seen.count >= count
        }
        #expect(arrived, "\(count) requests for the token; got \(seen)")
        return seen
    }

    /// The device holding `token` as stored.
    func device(token: String) throws -> Device? {
        let businessID = business.id
        return try herald.application.store.read { tx in
            try tx.devices.find(businessID: businessID, platform: .apns, tokens: [token]).first
        }
    }

    @Test func aCampaignReachesEachInstallThroughItsOwnHost() throws {
        let development = randomAPNsToken()
        let appStore = randomAPNsToken()
        let punchh = randomAPNsToken()
        try standIn.registerAPNsTokens([development], environment: "sandbox")
        try standIn.registerAPNsTokens([appStore, punchh], environment: "production")
        try install(token: development, environment: "sandbox")
        try install(token: appStore, environment: "production")
        // A phone of the Punchh API says no environment: the credential's.
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: punchh)
        #expect(try answers(punchh, count: 1) == ["production 200"], "its sign-up push")

        try herald.launchCampaign(business, message: Self.message)
        #expect(try answers(development, count: 1) == ["sandbox 200"])
        #expect(try answers(appStore, count: 1) == ["production 200"])
        #expect(try answers(punchh, count: 2) == ["production 200", "production 200"])
        let payload = try #require(try standIn.apnsRequests().last { $0["token"]?.stringValue == development })
        #expect(payload["payload"]?["aps"]?["alert"]?["title"] == "Soup's on")
        #expect(try standIn.stats()["apns"]?["rejected_by_status"] == [:], "no token went to the other host")
        #expect(try device(token: development) != nil && device(token: appStore) != nil)
        #expect(try device(token: punchh)?.userID == app.userID)
    }

    @Test func aTokenItsHostRefusesIsTakenByTheOtherAndKeptThere() throws {
        // An install that says production with a development build's token, and a Punchh device (the credential
        // says production) whose app is a development build.
        let mislabelled = randomAPNsToken()
        let punchh = randomAPNsToken()
        try standIn.registerAPNsTokens([mislabelled, punchh], environment: "sandbox")
        try install(token: mislabelled, environment: "production")
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: punchh)
        #expect(try answers(punchh, count: 2) == ["production 400", "sandbox 200"], "its sign-up push")

        let news = try #require(try herald.sendNews(business, to: [app.userID!]).first)
        let jobs = try herald.waitForDeliveries(of: news)
        #expect(jobs.map(\.status) == [.delivered] && jobs.first?.attempts == 1, "\(jobs)")
        #expect(
            try answers(punchh, count: 3) == ["production 400", "sandbox 200", "sandbox 200"],
            "the host that took it is the device's from then on")

        try herald.launchCampaign(business, message: Self.message)
        #expect(try answers(mislabelled, count: 2) == ["production 400", "sandbox 200"])
        let corrected = try Poll.until(timeout: .seconds(5), every: .milliseconds(20)) {
            try device(token: mislabelled)?.install?.apnsEnvironment == "sandbox"
        }
        #expect(corrected, "the install's environment is the host's that took its token")
        #expect(try device(token: mislabelled) != nil && device(token: punchh) != nil, "neither token was pruned")
    }

    @Test func aTokenNeitherHostTakesIsPrunedInOneAttempt() throws {
        let (bad, kept) = (randomAPNsToken(), randomAPNsToken())
        let app = try herald.signUpSettled(business, email: "ann@example.com", token: kept)
        try standIn.apnsRule(["token": .string(bad), "status": 400, "reason": "BadDeviceToken"])
        try install(token: bad, environment: "sandbox")
        try herald.launchCampaign(business, message: Self.message, audience: ["all": true])
        #expect(try answers(bad, count: 2) == ["sandbox 400", "production 400"])
        let pruned = try Poll.until(timeout: .seconds(5), every: .milliseconds(20)) { try device(token: bad) == nil }
        #expect(pruned, "refused by both hosts: a dead token")
        #expect(try device(token: kept)?.userID == app.userID)
    }

    @Test func aCredentialsConnectionsAreCountedPerHostAndTheOtherHostsAnswerNamesIt() throws {
        // The lease of a credential's connections holds for each host: what it has open is counted per host, or a
        // node sending to both would never find its connections closed down to its share, and keep its slots.
        let key = P256PrivateKey.generate()
        try standIn.registerAPNsKey(keyID: "HOSTS12345", teamID: "TEAM123456", topic: "com.example.hosts", key: key)
        let (development, appStore, mislabelled) = (randomAPNsToken(), randomAPNsToken(), randomAPNsToken())
        try standIn.registerAPNsTokens([development, mislabelled], environment: "sandbox")
        try standIn.registerAPNsTokens([appStore], environment: "production")
        let caFile = standIn.caFile
        let provider = APNsProvider(
            makeClient: { try HTTP2Client(configuration: .init(extraCAFile: caFile)) },
            credential: { _ in
                APNsCredential(
                    keyID: "HOSTS12345", teamID: "TEAM123456", topic: "com.example.hosts", environment: .production,
                    key: key, version: Timestamp(milliseconds: 1))
            }, clock: .system,
            configuration: .init(baseURLOverride: standIn.apnsURL, sandboxURLOverride: standIn.apnsSandboxURL),
            logger: .disabled)
        defer { provider.shutdown() }
        /// What the provider answered a push to `token` of `environment`, and the push's `apns-id`.
        func send(_ token: String, environment: String?) -> (answer: PushResult?, apnsID: String) {
            let apnsID = UUID().uuidString.lowercased()
            let answer = Mutex<PushResult?>(nil)
            let answered = DispatchSemaphore(value: 0)
            provider.send(
                OutgoingPush(
                    deliveryID: 1, businessID: 1, token: token, apnsID: apnsID,
                    content: PushContent(notificationID: 1, title: "Hi", body: "There"), apnsEnvironment: environment)
            ) { result in
                answer.withLock { $0 = result }
                answered.signal()
            }
            _ = answered.wait(timeout: .now() + 15)
            return (answer.withLock { $0 }, apnsID)
        }
        let toSandbox = send(development, environment: "sandbox")
        #expect(toSandbox.answer == .delivered(messageID: toSandbox.apnsID), "the sandbox host takes its own token")
        let toProduction = send(appStore, environment: nil)
        #expect(toProduction.answer == .delivered(messageID: toProduction.apnsID), "and production (the credential's)")
        #expect(provider.openConnections(.apns(1)) == 1, "one connection to each host")
        let corrected = send(mislabelled, environment: "production")
        #expect(
            corrected.answer == .delivered(messageID: corrected.apnsID, apnsEnvironment: "sandbox"),
            "the answer names the host that took it")
        #expect(try answers(mislabelled, count: 2) == ["production 400", "sandbox 200"])
    }

    @Test func oneURLForBothHostsTakesEveryPushAndTriesNoOther() throws {
        // HERALD_APNS_URL alone, as before there were two: both environments go to it, and a refusal is final.
        let standIn = self.standIn
        let single = try LiveHerald {
            $0.deliver(to: standIn)
            $0.apnsSandboxURL = nil
        }
        let business = try single.createBusiness()
        try single.configureAPNs(business, standIn: standIn, environment: "production")
        let (development, bad) = (randomAPNsToken(), randomAPNsToken())
        try standIn.apnsRule(["token": .string(bad), "status": 400, "reason": "BadDeviceToken"])
        for (token, environment) in [(development, "sandbox"), (bad, "production")] {
            let phone = single.deviceClient()
            let response = try phone.register(
                apiKey: business.apiKey,
                [("push_token", .string(token)), ("apns_environment", .string(environment))])
            try #require(response.status == 201, "\(response)")
        }
        try single.launchCampaign(business, message: Self.message)
        #expect(try answers(development, count: 1) == ["production 200"])
        #expect(try answers(bad, count: 1) == ["production 400"])
        let settled = try Poll.until(timeout: .seconds(5), every: .milliseconds(20)) {
            try single.application.store.read { tx in
                try tx.devices.find(businessID: business.id, platform: .apns, tokens: [bad]).isEmpty
            }
        }
        #expect(settled, "pruned after the one host refused it")
        #expect(try answers(bad, count: 1).count == 1, "and not sent again")
    }
}
