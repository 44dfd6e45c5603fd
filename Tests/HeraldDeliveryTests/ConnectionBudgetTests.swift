import HeraldDeliveryPorts
import Foundation
import HeraldAPNs
import HeraldCrypto
import HeraldDelivery
import HeraldHTTPClient
import HeraldModel
import HeraldServer
import HeraldStore
import HeraldTesting
import Synchronization
import Testing

/// `--provider-connections` as the fleet's budget: nodes sharing one lease store, each on its own clock reading,
/// never hold more connections than the budget together, share it evenly, and take a dead node's slots once its
/// leases run out. On the memory store and on each database.
@Suite("Connection budget")
struct ConnectionBudgetTests {
    /// Where the nodes lease: in memory, or a database they share.
    enum Leases: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite, postgres

        static var allCases: [Leases] { TestPostgres.isOff ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }

        var testDescription: String { rawValue }

        func make() throws -> any ConnectionLeaseStore {
            switch self {
            case .memory: MemoryConnectionLeaseStore()
            case .sqlite: SQLConnectionLeases(database: try StoreBackend.sqlite.makeDatabase().store.database)
            case .postgres: SQLConnectionLeases(database: try StoreBackend.postgres.makeDatabase().store.database)
            }
        }
    }

    static let credential = ConnectionCredential.apns(1)

    @Test(arguments: Leases.allCases)
    func aNodeAloneLeasesTheWholeBudget(_ leases: Leases) throws {
        let fleet = Fleet(try leases.make(), budget: 4)
        let node = fleet.node("node-a")
        #expect(node.budget.connections(for: Self.credential, at: at(0)) == 4)
        #expect(node.connections.limit(Self.credential) == 4, "its client is told at once")
        node.connections.fill(Self.credential)
        node.budget.renew(at: at(10))
        #expect(node.budget.usableConnections(Self.credential) == 4)
        #expect(node.budget.connections(for: .apns(2), at: at(11)) == 4, "each credential has a budget of its own")
    }

    @Test(arguments: Leases.allCases)
    func twoNodesShareTheBudgetEvenlyAndNeverExceedIt(_ leases: Leases) throws {
        let fleet = Fleet(try leases.make(), budget: 4)
        let (a, b) = (fleet.node("node-a"), fleet.node("node-b"))
        #expect(a.budget.connections(for: Self.credential, at: at(0)) == 4)
        a.connections.fill(Self.credential)
        #expect(b.budget.connections(for: Self.credential, at: at(1)) == 0, "A leases every slot: B sends none")
        fleet.check()
        // A's next look: its share is two. It stops taking requests on the other two, but keeps their slots while
        // they drain.
        a.budget.renew(at: at(10))
        #expect(a.connections.limit(Self.credential) == 2)
        #expect(a.budget.leasedConnections(Self.credential) == 4)
        #expect(b.budget.connections(for: Self.credential, at: at(11)) == 0)
        fleet.check()
        a.connections.drain(Self.credential)
        a.budget.renew(at: at(20))
        #expect(a.budget.leasedConnections(Self.credential) == 2, "given up once closed")
        #expect(b.budget.connections(for: Self.credential, at: at(21)) == 2)
        b.connections.fill(Self.credential)
        fleet.check()
        for second in stride(from: Int64(30), through: 90, by: 10) {
            a.budget.renew(at: at(second))
            b.budget.renew(at: at(second + 1))
            fleet.check()
        }
        #expect(a.budget.usableConnections(Self.credential) == 2)
        #expect(b.budget.usableConnections(Self.credential) == 2)
    }

    @Test(arguments: Leases.allCases)
    func aDeadNodesSlotsAreTakenOnceItsLeasesRunOut(_ leases: Leases) throws {
        let fleet = Fleet(try leases.make(), budget: 4)
        let (a, b) = (fleet.node("node-a"), fleet.node("node-b"))
        fleet.settle(a, b)
        // B dies after its last renewal at 3: its claim and slots last until 33.
        for second: Int64 in [13, 23, 32] {
            a.budget.renew(at: at(second))
            #expect(a.budget.usableConnections(Self.credential) == 2, "B's slots are still leased at \(second)")
        }
        a.budget.renew(at: at(33))
        #expect(a.budget.usableConnections(Self.credential) == 4)
        #expect(a.connections.limit(Self.credential) == 4)
    }

    @Test(arguments: Leases.allCases)
    func withMoreNodesThanSlotsTheFirstGetOneEachAndAStoppedNodesSlotGoesOn(_ leases: Leases) throws {
        let fleet = Fleet(try leases.make(), budget: 2)
        let (a, b, c) = (fleet.node("node-a"), fleet.node("node-b"), fleet.node("node-c"))
        #expect(a.budget.connections(for: Self.credential, at: at(0)) == 2)
        a.connections.fill(Self.credential)
        #expect(b.budget.connections(for: Self.credential, at: at(0)) == 0)
        #expect(c.budget.connections(for: Self.credential, at: at(0)) == 0)
        a.budget.renew(at: at(1))
        a.connections.drain(Self.credential)
        a.budget.renew(at: at(2))
        #expect(a.budget.leasedConnections(Self.credential) == 1)
        #expect(b.budget.connections(for: Self.credential, at: at(3)) == 1)
        #expect(c.budget.connections(for: Self.credential, at: at(3)) == 0, "two slots, three nodes: C has none")
        #expect(c.budget.connections(for: Self.credential, at: at(3)) == 0, "nor looks again before a second")
        fleet.check()
        b.budget.releaseAll()  // B stops
        #expect(c.budget.connections(for: Self.credential, at: at(4)) == 1, "C takes the slot B gave up")
        fleet.check()
    }

    @Test(arguments: Leases.allCases)
    func aCredentialIdleOnANodeGivesItsSlotsUp(_ leases: Leases) throws {
        let fleet = Fleet(try leases.make(), budget: 4)
        let (a, b) = (fleet.node("node-a"), fleet.node("node-b"))
        #expect(a.budget.connections(for: Self.credential, at: at(0)) == 4)
        a.budget.renew(at: at(590))
        #expect(a.budget.leasedConnections(Self.credential) == 4)
        a.budget.renew(at: at(600))
        #expect(a.budget.leasedConnections(Self.credential) == 0, "nothing sent for 10 minutes")
        #expect(a.connections.limit(Self.credential) == 0)
        #expect(b.budget.connections(for: Self.credential, at: at(601)) == 4)
    }

    @Test("a push of a credential the node leases no connection for is handed back, not sent and not an attempt")
    func aLeaselessPushIsHandedBack() throws {
        let leases = MemoryConnectionLeaseStore()
        _ = try leases.hold(4, of: "apns/1", budget: 4, owner: "node-a", until: at(30), at: at(0))
        let budget = ConnectionBudget(
            leases: leases, owner: "node-b", clock: WallClock { at(1) }, configuration: .init(budget: 4),
            logger: .disabled)
        let made = Atomic<Int>(0)
        let key = P256PrivateKey.generate()
        let provider = APNsProvider(
            makeClient: {
                made.add(1, ordering: .relaxed)
                return try HTTP2Client()
            },
            credential: { _ in
                APNsCredential(
                    keyID: "KEY1234567", teamID: "TEAM123456", topic: "com.example.app", environment: .production,
                    key: key, version: Timestamp(milliseconds: 0))
            },
            clock: WallClock { at(1) }, connections: budget, logger: .disabled)
        defer { provider.shutdown() }
        let answer = Mutex<PushResult?>(nil)
        provider.send(
            OutgoingPush(
                deliveryID: 1, businessID: 1, token: String(repeating: "a", count: 64), apnsID: UUID().uuidString,
                content: PushContent(notificationID: 1, title: "Hi", body: "There"))
        ) { result in answer.withLock { $0 = result } }
        guard case .leaseless(let retryAfter) = answer.withLock({ $0 }) else {
            Issue.record("answered \(String(describing: answer.withLock { $0 }))")
            return
        }
        #expect(retryAfter == .seconds(1))
        #expect(made.load(ordering: .relaxed) == 0, "no client, no connection")
    }
}

/// Nodes sharing one lease store, each with a stand-in for its provider's connections.
private final class Fleet {
    let leases: any ConnectionLeaseStore
    let budget: Int
    private(set) var nodes: [Node] = []

    struct Node {
        let budget: ConnectionBudget
        let connections: Connections
    }

    init(_ leases: any ConnectionLeaseStore, budget: Int) {
        self.leases = leases
        self.budget = budget
    }

    func node(_ owner: String) -> Node {
        let budget = ConnectionBudget(
            leases: leases, owner: owner, clock: WallClock { at(0) }, configuration: .init(budget: budget),
            logger: .disabled)
        let node = Node(budget: budget, connections: Connections())
        budget.attach(node.connections, for: .apns)
        nodes.append(node)
        return node
    }

    /// A holding every slot, then A and B two each, at 3 (A busy throughout).
    func settle(_ a: Node, _ b: Node) {
        let credential = ConnectionBudgetTests.credential
        _ = a.budget.connections(for: credential, at: at(0))
        a.connections.fill(credential)
        _ = b.budget.connections(for: credential, at: at(0))
        a.budget.renew(at: at(1))
        a.connections.drain(credential)
        a.budget.renew(at: at(2))
        _ = b.budget.connections(for: credential, at: at(3))
        b.connections.fill(credential)
        check()
    }

    /// The nodes together lease at most the budget, and have at most that many connections open.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        let credential = ConnectionBudgetTests.credential
        let leased = nodes.map { $0.budget.leasedConnections(credential) }
        let open = nodes.map { $0.connections.openConnections(credential) }
        #expect(leased.reduce(0, +) <= budget, "leased \(leased)", sourceLocation: sourceLocation)
        #expect(open.reduce(0, +) <= budget, "open \(open)", sourceLocation: sourceLocation)
        for (index, node) in nodes.enumerated() {
            #expect(open[index] <= leased[index], "a connection without a slot", sourceLocation: sourceLocation)
            #expect(node.connections.limit(credential) <= leased[index], sourceLocation: sourceLocation)
        }
    }
}

/// A provider's connections as the budget sees them: opened up to the limit when busy, draining when it drops.
private final class Connections: ConnectionHolder {
    private let state = Mutex<(limit: [ConnectionCredential: Int], open: [ConnectionCredential: Int])>(([:], [:]))

    func limitConnections(_ credential: ConnectionCredential, to count: Int) {
        state.withLock { $0.limit[credential] = count }
    }

    func openConnections(_ credential: ConnectionCredential) -> Int { state.withLock { $0.open[credential] ?? 0 } }

    func limit(_ credential: ConnectionCredential) -> Int { state.withLock { $0.limit[credential] ?? 0 } }

    /// Busy: as many open as the limit allows.
    func fill(_ credential: ConnectionCredential) { state.withLock { $0.open[credential] = $0.limit[credential] ?? 0 } }

    /// The connections beyond the limit have answered their last requests and closed.
    func drain(_ credential: ConnectionCredential) {
        state.withLock { $0.open[credential] = min($0.open[credential] ?? 0, $0.limit[credential] ?? 0) }
    }
}

/// Fixed times for tests.
private func at(_ seconds: Int64) -> Timestamp { Timestamp(milliseconds: 1_800_000_000_000 + seconds * 1000) }
