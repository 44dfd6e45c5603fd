import HeraldDeliveryPorts
import HeraldLifecycle
import HeraldModel
import HeraldObservability
import Synchronization

/// The connections to Apple and Google as a budget of the whole fleet: at most `budget` connections per credential
/// (`ConnectionCredential`: a business's APNs key, or FCM) over every node on one database, leased through it
/// (`ConnectionLeaseStore`), so that adding nodes does not multiply the connections Apple sees for one key.
///
/// Each slot is one connection a node may keep open, leased for `leaseTime` and renewed every `renewal` while the
/// node sends for that credential: a node that dies loses its slots when their leases run out, and the others take
/// them; a node that stops gives them up. The budget is shared evenly among the nodes that want the credential now
/// (its claimants, in the same order on every node): each gets `budget / nodes`, and the first `budget % nodes`
/// one more, so with more nodes than slots the first `budget` nodes get one each and the rest none. A node above
/// its share lets the connections beyond it drain (no new request, closed when their last answer arrives) and gives
/// their slots up only once they are closed, so the fleet never holds more connections than slots; the node below
/// its share takes them at its next look.
///
/// A node without a slot for a credential sends none of its pushes: its provider answers them
/// `PushResult.leaseless` (not an attempt), so the engine hands them back to the shared queue for a node that holds
/// a slot, and holds that credential's next ones back for `retry` before it looks for a slot again. One node alone
/// (SQLite) is the only claimant and holds the whole budget.
///
/// ```swift
/// let budget = ConnectionBudget(
///     leases: leases, owner: nodeID, clock: .system, configuration: .init(budget: 4), logger: logger)
/// budget.attach(apnsProvider, for: .apns)          // told how many connections each credential may keep
/// let connections = budget.connections(for: .apns(businessID), at: now)   // 0: hand the push back
/// try await budget.run()                          // renews until asked to stop, then gives everything up
/// ```
package final class ConnectionBudget: Worker {
    /// Settings.
    package struct Configuration: Sendable {
        /// Connections per credential, every node together (`--provider-connections`).
        package var budget: Int
        /// How long a slot stays leased unless renewed: a dead node's slots are free this long after its last renewal.
        package var leaseTime: Duration = .seconds(30)
        /// How often a node renews its slots and looks at its share again; every `retry` instead during the first
        /// `leaseTime` after it first leased a credential's slots, so that nodes starting together (the first of
        /// which leases the whole budget) share it within seconds.
        package var renewal: Duration = .seconds(10)
        /// A credential that sent nothing on this node this long gives its connections and slots up.
        package var idle: Duration = .seconds(600)
        /// A credential without a slot here looks for one again at most this often, while it has pushes; they are
        /// handed back to the queue for this long.
        package var retry: Duration = .seconds(1)

        /// A budget of `budget` connections per credential.
        package init(budget: Int = 4) { self.budget = max(1, budget) }
    }

    /// The settings.
    package let configuration: Configuration
    private let leases: any ConnectionLeaseStore
    private let owner: String
    private let clock: WallClock
    private let logger: Logger
    private let metrics: MetricsRegistry?
    private let state = Mutex<[ConnectionCredential: Lease]>([:])
    private let holders = Mutex<[PushPlatform: WeakHolder]>([:])
    private let wakeup = Wakeup()

    /// What this node holds of one credential's budget.
    private struct Lease {
        /// Slots leased.
        var held = 0
        /// Connections it may use: the slots held within its share (the others' connections drain).
        var usable = 0
        /// When a push last asked for it.
        var wantedAt: Timestamp
        /// When its share was last looked at.
        var balancedAt: Timestamp?
        /// When it first leased a slot (looked at every `retry` for the first `leaseTime`).
        var leasedSince: Timestamp?
        /// The end of the leases as last renewed.
        var renewedUntil: Timestamp?
        /// A look at its share is under way (on the renewal thread or a send's).
        var balancing = false
        /// Its series is in `/metrics`.
        var metered = false

        /// Whether its leases are to be renewed at `now`.
        func isDue(at now: Timestamp, _ configuration: Configuration) -> Bool {
            guard !balancing else { return false }
            guard let balancedAt else { return true }
            let young = leasedSince.map { now.since($0) < configuration.leaseTime } ?? false
            return now.since(balancedAt) >= (young ? configuration.retry : configuration.renewal)
        }
    }

    private struct WeakHolder {
        weak var holder: (any ConnectionHolder)?
    }

    /// A budget for the node `owner`, leasing through `leases`; each credential's slots leased are shown in
    /// `metrics` (`herald_provider_connections_leased`).
    package init(
        leases: any ConnectionLeaseStore, owner: String, clock: WallClock, configuration: Configuration,
        metrics: MetricsRegistry? = nil, logger: Logger
    ) {
        self.leases = leases
        self.owner = owner
        self.clock = clock
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    /// Tells `holder` (kept weakly) how many connections each credential of `platform` may keep.
    package func attach(_ holder: any ConnectionHolder, for platform: PushPlatform) {
        holders.withLock { $0[platform] = WeakHolder(holder: holder) }
    }

    /// The connections `credential` may keep on this node now, its push being sent at `now`; 0: none, and its
    /// pushes go back to the queue. The first push of a credential (and, while it has none, one every `retry`)
    /// leases its share at once, in the database.
    package func connections(for credential: ConnectionCredential, at now: Timestamp) -> Int {
        let (usable, due) = state.withLock { state -> (Int, Bool) in
            guard let lease = state[credential] else {
                state[credential] = Lease(wantedAt: now, balancing: true)
                return (0, true)
            }
            state[credential]!.wantedAt = now
            if lease.usable > 0 || lease.balancing { return (lease.usable, false) }
            guard lease.balancedAt.map({ now.since($0) >= configuration.retry }) ?? true else { return (0, false) }
            state[credential]!.balancing = true
            return (0, true)
        }
        return due ? balance(credential, at: now) : usable
    }

    /// The connections `credential` may keep on this node now, as last decided (0 before its first push).
    package func usableConnections(_ credential: ConnectionCredential) -> Int {
        state.withLock { $0[credential]?.usable ?? 0 }
    }

    /// The slots of `credential` this node leases now (its connections draining included).
    package func leasedConnections(_ credential: ConnectionCredential) -> Int {
        state.withLock { $0[credential]?.held ?? 0 }
    }

    /// Renews the slots of every credential due (looked at `renewal` ago, or `retry` ago in its first `leaseTime`)
    /// and looks at its share again: what `run` does every `retry`.
    package func renew(at now: Timestamp) {
        let due = state.withLock { state -> [ConnectionCredential] in
            let due = state.keys.filter { state[$0]!.isDue(at: now, configuration) }
            for credential in due { state[credential]!.balancing = true }
            return due
        }
        for credential in due { _ = balance(credential, at: now) }
    }

    /// Gives up every slot and claim of this node (it stops: its connections are closed).
    package func releaseAll() {
        let credentials = state.withLock { state in
            defer { state.removeAll() }
            return Array(state.keys)
        }
        for credential in credentials {
            holder(credential.platform)?.limitConnections(credential, to: 0)
            do {
                try leases.release(credential.description, owner: owner)
            } catch {
                logger.warning(
                    "cannot give up connection leases; they run out by themselves",
                    ["credential": credential.description, "error": "\(error)"])
            }
        }
    }

    /// Renews the leases as they come due until asked to stop, then gives them all up. It stops after the delivery
    /// engine, whose providers have closed their connections by then.
    package func run() async throws {
        GracefulShutdown.onRequest { [wakeup] in wakeup.signal() }
        while !GracefulShutdown.isRequested {
            renew(at: clock.now())
            await wakeup.wait(until: clock.now().adding(configuration.retry), clock: clock)
        }
        releaseAll()
    }

    // MARK: - Sharing

    /// This node's share of `budget` among `claimants`: an even part, the first `budget % count` one more.
    static func share(_ budget: Int, among claimants: [String], of owner: String) -> Int {
        guard let rank = claimants.firstIndex(of: owner) else { return 0 }
        return budget / claimants.count + (rank < budget % claimants.count ? 1 : 0)
    }

    /// Looks at `credential`'s share at `now` and leases, renews or gives up slots to match; returns the
    /// connections it may use. The caller set its `balancing`.
    private func balance(_ credential: ConnectionCredential, at now: Timestamp) -> Int {
        // Gone only when every lease was given up (the node stops): nothing to look at.
        guard let lease = state.withLock({ $0[credential] }) else { return 0 }
        let holder = holder(credential.platform)
        let name = credential.description
        let until = now.adding(configuration.leaseTime)
        let wanted = now.since(lease.wantedAt) < configuration.idle
        var (held, usable, renewedUntil) = (lease.held, 0, lease.renewedUntil)
        do {
            var share = 0
            if wanted {
                let claimants = try leases.claimants(of: name, owner: owner, until: until, at: now)
                share = Self.share(configuration.budget, among: claimants, of: owner)
            }
            // Beyond its share first stops taking requests; its slots go once its connections have closed.
            if share < lease.usable { holder?.limitConnections(credential, to: share) }
            let open = min(lease.held, holder?.openConnections(credential) ?? 0)
            if wanted || open > 0 {
                held = try leases.hold(
                    max(share, open), of: name, budget: configuration.budget, owner: owner, until: until, at: now)
            } else {
                try leases.release(name, owner: owner)
                held = 0
            }
            usable = min(held, share)
            renewedUntil = until
        } catch {
            logger.warning("cannot renew connection leases", ["credential": name, "error": "\(error)"])
            // Slots not renewed in time may be another node's now: none is used until they are again.
            let stillLeased = renewedUntil.map { now < $0 } ?? false
            (held, usable) = stillLeased ? (lease.held, lease.usable) : (0, 0)
        }
        let meter = state.withLock { state -> Bool in
            guard var current = state[credential] else { return false }
            if held == 0 && now.since(current.wantedAt) >= configuration.idle {
                state[credential] = nil
                return false
            }
            let meter = !current.metered && held > 0
            (current.held, current.usable, current.renewedUntil) = (held, usable, renewedUntil)
            (current.balancedAt, current.balancing) = (now, false)
            if held == 0 {
                current.leasedSince = nil
            } else if current.leasedSince == nil {
                current.leasedSince = now
            }
            current.metered = current.metered || meter
            state[credential] = current
            return meter
        }
        // After the state: a client made meanwhile reads the new count, or is already there to be told it.
        holder?.limitConnections(credential, to: usable)
        if meter { observe(credential) }
        if usable != lease.usable {
            logger.info(
                "provider connections leased",
                ["credential": name, "connections.usable": String(usable), "connections.leased": String(held)])
        }
        return usable
    }

    private func holder(_ platform: PushPlatform) -> (any ConnectionHolder)? {
        holders.withLock { $0[platform]?.holder }
    }

    private func observe(_ credential: ConnectionCredential) {
        metrics?.sampledGauge(
            "herald_provider_connections_leased",
            help: "Connection slots of a credential this node leases from the fleet's budget (--provider-connections).",
            labels: ["credential": credential.description]
        ) { [weak self] in Double(self?.leasedConnections(credential) ?? 0) }
    }
}
