import Foundation
import HeraldCrypto
import HeraldModel
import HeraldAPI
import HeraldStore
import HeraldTesting
import Testing

/// Two whole Heralds on one PostgreSQL database sending to the APNs stand-in: together they keep to one
/// `--provider-connections` budget, and the node leasing no connection hands its pushes back unsent.
@Suite("Fleet connection budget", .serialized)
struct FleetConnectionTests {
    @Test(.enabled(if: !TestPostgres.isOff, "PostgreSQL tests turned off (HERALD_TEST_POSTGRES=off)"))
    func twoNodesOpenNoMoreConnectionsThanTheBudgetAndLoseNothing() throws {
        let standIn = try StandIn()
        let fleet = try LiveHerald.Fleet()
        func node() throws -> LiveHerald {
            try LiveHerald {
                $0.deliver(to: standIn)
                fleet.join(&$0)
                $0.delivery.connectionsPerHost = 1
            }
        }
        let (first, second) = (try node(), try node())
        defer {
            first.stop()
            second.stop()
        }
        let business = try first.createBusiness()
        try first.configureAPNs(business, standIn: standIn)
        var userIDs: [Int64] = []
        for index in 0..<6 {
            let app = (index % 2 == 0 ? first : second).mobileClient(for: business, deviceID: UUID().uuidString)
            let response = try app.signUp(email: "user\(index)@example.com", token: randomAPNsToken())
            #expect(response.status == 200)
            userIDs.append(try #require(app.userID))
        }
        for _ in 0..<3 { _ = try second.sendNews(business, to: userIDs) }
        var jobs: [Delivery] = []
        for userID in userIDs {
            for entry in try first.store.read({ try $0.inbox.page(userID: userID, limit: 10, offset: 0) }) {
                jobs += try first.waitForDeliveries(of: entry.id, timeout: .seconds(30))
            }
        }
        #expect(jobs.count == 6 * 4, "a welcome and three news each")
        #expect(jobs.allSatisfy { $0.status == .delivered && $0.attempts == 1 }, "handed back without an attempt")
        let apns = try standIn.stats()["apns"]
        #expect(
            apns?["max_open_connections"]?.int64Value == 1, "one connection for the fleet: \(String(describing: apns))")
        #expect(apns?["accepted"]?.int64Value == 24)
        // A node that sent says in /metrics what it leases, and no more than one leases the one connection.
        let metrics = [first, second].map { $0.application.metrics.render() }
        #expect(metrics.contains { $0.contains("herald_provider_connections_leased{credential=\"apns/1\"}") })
        let leasing = metrics.filter { $0.contains("herald_provider_connections_leased{credential=\"apns/1\"} 1") }
        #expect(leasing.count <= 1, "one node at most leases the one connection")
        // Which node sends, and whether the other claims a push first and hands it back, is a race between them
        // (CI saw the other claim none; here the slot has also moved between them, one connection at a time).
        // `ConnectionBudgetTests.aLeaselessPushIsHandedBack` shows the handing back.
    }
}
