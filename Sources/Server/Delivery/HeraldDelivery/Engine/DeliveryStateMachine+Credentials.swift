import HeraldModel
import HeraldDeliveryPorts

/// What the engine keeps of each credential, and how much of the queue that lets it claim.
extension DeliveryStateMachine {
    /// How far ahead a credential paced by a quota is claimed for: the quota's slots in this time.
    static let quotaLookahead: Duration = .milliseconds(250)

    /// How many of a credential's pushes it can put in flight soon: what its window lets go within about a round
    /// trip (its room, and the places the answers in flight free), and no more than its quota lets go in the next
    /// `quotaLookahead` where one paces it (FCM's).
    func sendableSoon(_ key: CredentialKey, _ state: CredentialState) -> Int {
        let sendable = state.window.sendableWithinRoundTrip
        guard key.platform == .fcm, let perMinute = configuration.fcmQuotaPerMinute else { return sendable }
        return min(sendable, state.quota.slots(within: Self.quotaLookahead, defaultPerMinute: perMinute))
    }

    /// How many jobs to hold claimed and unsent (here or waiting for room), at most `ahead` and the engine's window:
    /// for each credential sending now, what it can put in flight soon (`sendableSoon`), but no more than its room now
    /// and one claim; with none sending, a new credential's starting window (one starting from a window kept sends
    /// that at once, and the next claim, made right after, is sized to it). A claim never asks for more than one
    /// credential can take while its jobs are all that comes: jobs of a credential claimed beyond its room would wait
    /// here or go back to the queue unsent (`outcome="deferred"`), a read and two writes each for nothing. A
    /// credential held back (`throttled`) sends nothing soon and counts for nothing; its jobs are settled as they come.
    func claimTarget(ahead: Int, at now: Timestamp) -> Int {
        var target = 0
        var active = false
        for (key, state) in credentials {
            guard state.window.inFlight > 0 || state.heldCount > 0, throttled[key].map({ now >= $0.until }) ?? true
            else { continue }
            active = true
            let room = state.window.limit - state.window.inFlight
            target += min(sendableSoon(key, state), room + configuration.claimBatch)
        }
        return min(ahead, window.limit, active ? target : configuration.credentialInitialWindow)
    }

    /// The windows the nodes kept (`CredentialWindowStore`, within the engine's `windowMemory`): a credential this
    /// node starts sending for starts from its own.
    mutating func knownWindows(_ windows: [CredentialWindow]) {
        storedWindows.removeAll(keepingCapacity: true)
        for window in windows { storedWindows[window.key] = window }
    }

    /// The windows of this node's credentials to keep at `now`, in credential order (two nodes saving together take
    /// their rows' locks in the same order): those that changed since this node last kept them (`windowsKept`), and
    /// those it last kept before `refreshBefore` and sent with since (a window in use, held unchanged, is not
    /// forgotten). A credential this node no longer sends for is not kept again: its window ages out of
    /// `windowMemory`, and does not overwrite the one a node sending for it keeps.
    func windowsToKeep(at now: Timestamp, refreshBefore: Timestamp) -> [CredentialWindow] {
        credentials.compactMap { key, state -> CredentialWindow? in
            let (limit, found) = (state.window.limit, !state.window.slowStart)
            if let kept = keptWindows[key], kept.limit == limit, kept.found == found {
                guard kept.at < refreshBefore, let sent = state.lastSentAt, sent >= kept.at else { return nil }
            }
            return CredentialWindow(
                businessID: key.businessID, platform: key.platform, limit: limit, found: found, at: now)
        }.sorted { ($0.businessID, $0.platform.rawValue) < ($1.businessID, $1.platform.rawValue) }
    }

    /// `windows` were kept (`CredentialWindowStore.save`).
    mutating func windowsKept(_ windows: [CredentialWindow]) {
        for window in windows { keptWindows[window.key] = window }
    }

    /// A credential's pushes held back on this node (`throttled`).
    struct Hold {
        static let leaselessReason = "no connection of the fleet's budget leased on this node"
        /// Nothing of the credential's is sent before this time.
        var until: Timestamp
        /// Whether it is held because this node leases no connection for it, not because the provider asked.
        var leaseless: Bool
    }

    /// One credential's figures (`reading`).
    struct CredentialReading {
        var limit: Int
        var inFlight: Int
        var refusals: Int
        var waiting: Int
    }

    /// What the engine keeps of one credential: its congestion window and the jobs waiting for room in it.
    struct CredentialState {
        var window: CongestionWindow
        /// The stretches of its send quota (FCM's per project) leased for this node.
        var quota = QuotaAllowance()
        /// When this node last sent one of its pushes.
        private(set) var lastSentAt: Timestamp?
        /// The quota is spent until then.
        var quotaReadyAt: Timestamp?
        /// Jobs claimed for this credential while its window was full (or its quota spent), oldest from `heldStart`.
        var held: [(job: ClaimedDelivery, leaseUntil: Timestamp)] = []
        private var heldStart = 0

        init(window: CongestionWindow) { self.window = window }

        /// One of its pushes was sent at `now`.
        mutating func sent(at now: Timestamp) {
            window.sent()
            lastSentAt = now
        }

        /// How many jobs wait.
        var heldCount: Int { held.count - heldStart }

        /// The oldest job waiting, taken out.
        mutating func takeHeld() -> (job: ClaimedDelivery, leaseUntil: Timestamp)? {
            guard heldStart < held.count else { return nil }
            let next = held[heldStart]
            heldStart += 1
            if heldStart == held.count {
                held.removeAll(keepingCapacity: true)
                heldStart = 0
            } else if heldStart >= 256 && heldStart * 2 >= held.count {
                held.removeFirst(heldStart)
                heldStart = 0
            }
            return next
        }
    }

    /// A business's credential for a platform, as the kept windows name it.
    typealias CredentialKey = HeraldDeliveryPorts.CredentialKey

    static func key(_ businessID: Int64, _ platform: PushPlatform) -> CredentialKey {
        CredentialKey(businessID: businessID, platform: platform)
    }
}
