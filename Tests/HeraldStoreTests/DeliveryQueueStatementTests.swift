import HeraldModel
import HeraldPostgres
import HeraldDeliveryPorts
import HeraldStore
import HeraldTesting
import Testing

@Suite(
    "Store conformance: the delivery queue's prepared statements",
    .enabled(if: !TestPostgres.isOff, "PostgreSQL tests turned off (HERALD_TEST_POSTGRES=off)"))
struct DeliveryQueueStatementTests {
    /// Claims, take-overs of a dead node's jobs and answers (accepted, held back) of every batch size share the
    /// statements the first batch prepared: a list of ids is bound as one array, not written into the text a
    /// placeholder per id. A text that grew with its list was prepared anew for each length (a few, padded to powers
    /// of two; each length past 1,024), and `PostgresConnection`'s cache, full at 256, deallocated every statement,
    /// the claim's too.
    @Test func batchesOfEverySizeShareTheirStatements() throws {
        let fixture = try StoreFixture(.postgres)
        let device = try fixture.register(fixture.user, key: "ios", token: "aaaa")
        let sizes = Array(3...20)
        _ = try fixture.publish(
            (0..<sizes.reduce(0, +)).map { fixture.draft(fixture.user, "n\($0)") }, at: at(0))
        // One connection: the session whose statements `pg_prepared_statements` lists.
        let node = try Store(
            database: try TestPostgres.database(schema: fixture.path, options: .init(poolSize: 1)))
        let queue = node.deliveryQueue
        var prepared: [Int64] = []
        for (round, size) in sizes.enumerated() {
            let time = 10 * Int64(round + 1)
            // A node claims `size` jobs and dies; another takes them over when the lease has run out, and answers
            // them: accepted with the provider's id (FCM's) or without (APNs'), or held back for later.
            let lost = try queue.claim(owner: "dead", limit: size, leaseUntil: at(time + 1), at: at(time))
            let taken = try queue.claim(owner: "alive", limit: size, leaseUntil: at(time + 9), at: at(time + 2))
            #expect(lost.count == size && taken.map(\.id) == lost.map(\.id), "round \(round)")
            let outcomes: [DeliveryCompletion.Outcome] = [
                .delivered(providerMessageID: "m"), .delivered(providerMessageID: nil),
                .wait(until: at(100_000), reason: "credential at its limit"),
            ]
            let answers = taken.enumerated().map { index, job in
                DeliveryCompletion(
                    id: job.id, leaseOwner: "alive", outcome: outcomes[index % 3], deviceID: device.id,
                    token: job.token)
            }
            #expect(try queue.record(answers, at: at(time + 3)) == size, "round \(round)")
            prepared.append(
                try node.database.read { try $0.scalar("SELECT count(*) FROM pg_prepared_statements") })
        }
        let held = sizes.map { $0 / 3 }.reduce(0, +)
        #expect(try queue.depth(at: at(1_000)) == QueueDepth(queued: held, due: 0, sending: 0))
        #expect(prepared.allSatisfy { $0 == prepared[0] }, "statements prepared after each round: \(prepared)")
    }
}
