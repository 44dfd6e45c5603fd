import HeraldCrypto
import HeraldModel
import HeraldTesting
import Testing

/// Businesses whose apps are of one Apple team send with the team's one APNs key: one provider token serves them all
/// (Apple refuses a key's new token within 20 minutes of the last, whichever business it came from), and a business
/// holding another key under the same key id never sends with it.
@Suite("APNs: one key, several businesses", .serialized)
struct APNsSharedKeyTests {
    static let keyID = "SHARED1234"
    static let teamID = "TEAM123456"

    /// Sets `key` (named `keyID` of `teamID`) as `business`'s APNs key for `topic`, through the admin API.
    static func setKey(_ key: P256PrivateKey, topic: String, on business: LiveHerald.BusinessKeys, _ herald: LiveHerald)
        throws
    {
        let response = try herald.admin(
            "PUT", "/api/admin/businesses/\(business.id)/apns",
            json: JSON.object([
                ("key_p8", .string(key.pemRepresentation)), ("key_id", .string(keyID)), ("team_id", .string(teamID)),
                ("topic", .string(topic)), ("environment", "sandbox"),
            ]).encodedString)
        try #require(response.status == 200, "\(response)")
    }

    /// A user of `business` signed up with an iOS device; answers the ids of the messages it got (the welcome).
    static func signUp(_ business: LiveHerald.BusinessKeys, _ herald: LiveHerald) throws -> (Int64, [Int64]) {
        let app = herald.mobileClient(for: business, deviceID: UUIDString.random())
        let response = try app.signUp(email: "ann@example.com", token: randomAPNsToken())
        try #require(response.status == 200, "\(response)")
        let userID = try #require(app.userID)
        return (userID, try herald.store.read { try $0.inbox.page(userID: userID, limit: 10, offset: 0) }.map(\.id))
    }

    @Test(
        "two businesses with one key both deliver at once, with one provider token",
        .bug(id: "issue-40-8", "each signed its own token for the key: Apple refused the second for 20 minutes"))
    func businessesSharingAKeyShareItsToken() throws {
        let standIn = try StandIn()
        let herald = try LiveHerald { $0.deliver(to: standIn) }
        let key = P256PrivateKey.generate()
        let topics = ["com.example.burger", "com.example.pizza"]
        try standIn.call(
            "POST", "/apns/keys",
            [
                "key_id": .string(Self.keyID), "team_id": .string(Self.teamID),
                "topics": .array(topics.map { .string($0) }),
                "public_key_pem": .string(key.publicKey.pemRepresentation),
            ])
        var messages: [Int64] = []
        for (name, topic) in zip(["Burger Co", "Pizza Co"], topics) {
            let business = try herald.createBusiness(name: name)
            try Self.setKey(key, topic: topic, on: business, herald)
            let (userID, welcome) = try Self.signUp(business, herald)
            messages += welcome + (try herald.sendNews(business, to: [userID]))
        }
        #expect(messages.count == 4, "a welcome and a news item each")
        for id in messages {
            let jobs = try herald.waitForDeliveries(of: id, timeout: .seconds(10))
            #expect(jobs.map(\.status) == [.delivered], "\(jobs)")
            #expect(jobs.map(\.attempts) == [1], "none held back by a refused token: \(jobs)")
        }
        let apns = try standIn.stats()["apns"]
        #expect(apns?["distinct_jwts"]?[Self.keyID]?.int64Value == 1, "one token: \(String(describing: apns))")
        #expect(apns?["token_updates_rejected"]?.int64Value == 0)
        #expect(apns?["accepted"]?.int64Value == 4)
    }

    @Test("a business holding another key under the same id never sends with the key's token")
    func anotherKeyUnderTheSameIDSignsItsOwn() throws {
        let standIn = try StandIn()
        let herald = try LiveHerald { $0.deliver(to: standIn) }
        let key = P256PrivateKey.generate()
        try standIn.registerAPNsKey(keyID: Self.keyID, teamID: Self.teamID, topic: "com.example.burger", key: key)
        let owner = try herald.createBusiness(name: "Burger Co")
        try Self.setKey(key, topic: "com.example.burger", on: owner, herald)
        let (ownerID, welcome) = try Self.signUp(owner, herald)
        for id in welcome { #expect(try herald.waitForDeliveries(of: id).map(\.status) == [.delivered]) }

        // Another business claims the key id and team with a key of its own, for the same app.
        let impostor = try herald.createBusiness(name: "Impostor Co")
        try Self.setKey(P256PrivateKey.generate(), topic: "com.example.burger", on: impostor, herald)
        let (_, refused) = try Self.signUp(impostor, herald)
        for id in refused {
            let jobs = try herald.waitForDeliveries(of: id) {
                $0.first?.lastReason?.contains("credential broken") == true
            }
            #expect(jobs.map(\.status) == [.queued], "its own token, which Apple refuses: \(jobs)")
        }
        for id in try herald.sendNews(owner, to: [ownerID]) {
            let jobs = try herald.waitForDeliveries(of: id)
            #expect(jobs.map(\.status) == [.delivered] && jobs.map(\.attempts) == [1], "\(jobs)")
        }
        let tokens = try standIn.apnsRequests().compactMap { $0["headers"]?["authorization"]?.stringValue }
        #expect(Set(tokens).count == 2, "the impostor signed a token of its own")
    }
}
