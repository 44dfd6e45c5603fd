import HeraldModel
import HeraldStore
import HeraldTesting
import Testing

/// The connection slots the nodes lease from a credential's budget: never one slot to two nodes, a lease that runs
/// out is anyone's, a node gives up what it holds beyond what it asks for.
@Suite("Store conformance: connection leases")
struct ConnectionLeaseStoreTests {
    @Test(arguments: StoreBackend.allCases)
    func claimantsAreTheNodesWhoseClaimHasNotRunOut(_ backend: StoreBackend) throws {
        let leases = SQLConnectionLeases(database: try backend.makeDatabase().store.database)
        #expect(try leases.claimants(of: "apns/1", owner: "node-b", until: at(30), at: at(0)) == ["node-b"])
        #expect(try leases.claimants(of: "apns/1", owner: "node-a", until: at(40), at: at(10)) == ["node-a", "node-b"])
        #expect(try leases.claimants(of: "apns/2", owner: "node-c", until: at(40), at: at(10)) == ["node-c"])
        // B's claim ran out at 30; A renews its own.
        #expect(try leases.claimants(of: "apns/1", owner: "node-a", until: at(65), at: at(35)) == ["node-a"])
        try leases.release("apns/1", owner: "node-a")
        #expect(try leases.claimants(of: "apns/1", owner: "node-b", until: at(70), at: at(40)) == ["node-b"])
    }

    @Test(arguments: StoreBackend.allCases)
    func aSlotIsOneNodesUntilItsLeaseRunsOut(_ backend: StoreBackend) throws {
        let leases = SQLConnectionLeases(database: try backend.makeDatabase().store.database)
        func hold(_ owner: String, _ count: Int, until: Int64, at now: Int64) throws -> Int {
            try leases.hold(count, of: "apns/1", budget: 4, owner: owner, until: at(until), at: at(now))
        }
        #expect(try hold("node-a", 3, until: 30, at: 0) == 3)
        #expect(try hold("node-b", 4, until: 30, at: 0) == 1, "one slot of four is left")
        #expect(try leases.leases(of: "apns/1", at: at(0)).map(\.owner) == ["node-a", "node-a", "node-a", "node-b"])
        // A gives up its highest slot; B takes it.
        #expect(try hold("node-a", 2, until: 40, at: 10) == 2)
        #expect(try hold("node-b", 2, until: 40, at: 10) == 2)
        #expect(try leases.leases(of: "apns/1", at: at(10)).map(\.owner) == ["node-a", "node-a", "node-b", "node-b"])
        #expect(try hold("node-c", 1, until: 40, at: 20) == 0, "every slot is leased")
        // A renews at 35; B dies, and its slots are free once its leases ran out at 40.
        #expect(try hold("node-a", 2, until: 65, at: 35) == 2)
        #expect(try hold("node-c", 1, until: 69, at: 39) == 0)
        #expect(try hold("node-c", 2, until: 70, at: 40) == 2)
        #expect(try leases.leases(of: "apns/1", at: at(40)).map(\.owner) == ["node-a", "node-a", "node-c", "node-c"])
        // A lowered budget gives up the slots above it.
        #expect(try leases.hold(2, of: "apns/1", budget: 1, owner: "node-a", until: at(70), at: at(41)) == 1)
        try leases.release("apns/1", owner: "node-c")
        #expect(try leases.leases(of: "apns/1", at: at(41)).map(\.owner) == ["node-a"])
        #expect(try leases.leases(of: "apns/2", at: at(41)).isEmpty, "each credential has a budget of its own")
    }
}
