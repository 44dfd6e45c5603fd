import HeraldModel
import HeraldStore

/// Sends a launched one-shot campaign to its audience in batches, each one transaction: the batch's messages
/// (a device-addressed entry per target — pushed to it and/or handed to its pull — and an inbox entry per
/// signed-in user), the counters, and the cursor past its last device. A crash between batches loses nothing and
/// doubles nobody: the next run resumes after the cursor, and a device is messaged once per campaign and trigger
/// (a unique key).
package struct CampaignFanOut: Sendable {
    let store: Store
    let notifications: NotificationService
    let clock: WallClock
    /// Devices per batch (transaction).
    let batchSize: Int

    /// A fan-out over `store`, `batchSize` devices a transaction.
    package init(store: Store, notifications: NotificationService, clock: WallClock, batchSize: Int = 1000) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
        self.batchSize = batchSize
    }

    /// What a batch did.
    package struct Batch: Sendable, Equatable {
        /// Devices of the audience handled.
        package var targeted: Int
        /// Messages made available (a push queued, a pull waiting, or an inbox entry).
        package var sent: Int
        /// Devices left out by a limit (frequency cap).
        package var capped: Int
        /// Whether the campaign has reached its whole audience now (and completed).
        package var finished: Bool
    }

    /// The one-shot campaigns to work on now: running, started, with targets left.
    package func due() throws -> [Int64] {
        let now = clock.now()
        return try store.read { tx in
            try tx.campaigns.running(at: now, limit: 100).filter { CampaignSpec($0).trigger.isOneShot }.map(\.id)
        }
    }

    /// Sends the next batch of campaign `id` (nothing when it is not running, not one-shot, or not due).
    @discardableResult
    package func step(campaign id: Int64) throws -> Batch {
        let now = clock.now()
        return try store.transaction { tx in
            guard let campaign = try tx.campaigns.lock(id: id), campaign.status == .running,
                campaign.startAt.map({ $0 <= now }) ?? true
            else { return Batch(targeted: 0, sent: 0, capped: 0, finished: false) }
            let spec = CampaignSpec(campaign)
            guard spec.trigger.isOneShot, let business = try tx.businesses.find(id: campaign.businessID) else {
                return Batch(targeted: 0, sent: 0, capped: 0, finished: false)
            }
            let targets = try tx.audiences.targets(
                businessID: campaign.businessID, audience: try audience(campaign), sandboxOnly: campaign.sandbox,
                after: campaign.fanoutCursor, limit: batchSize, at: now)
            let start = max(campaign.startAt ?? campaign.launchedAt ?? now, campaign.launchedAt ?? now)
            var targeted = try tx.campaigns.counters(campaignID: id)["targeted"] ?? 0
            var batch = Batch(targeted: targets.count, sent: 0, capped: 0, finished: targets.count < batchSize)
            let writer = try CampaignMessageWriter(
                campaign: campaign, spec: spec, business: business, notifications: notifications, tx: tx, now: now)
            var sends: [(target: AudienceTarget, due: Timestamp)] = []
            sends.reserveCapacity(targets.count)
            for target in targets {
                targeted += 1
                if try writer.capped(target) {
                    batch.capped += 1
                    continue
                }
                sends.append((target, writer.dueTime(for: target, start: start, position: targeted)))
            }
            batch.sent = try writer.send(to: sends, triggerKey: "launch")
            try tx.campaigns.count(.targeted, by: Int64(batch.targeted), campaignID: id)
            try tx.campaigns.count(.sent, by: Int64(batch.sent), campaignID: id)
            try tx.campaigns.count("capped", by: Int64(batch.capped), campaignID: id)
            if let last = targets.last { try tx.campaigns.advanceCursor(id: id, to: last.deviceID, at: now) }
            if batch.finished {
                _ = try tx.campaigns.changeStatus(id: id, from: [.running], to: .completed, at: now, finished: true)
            }
            return batch
        }
    }

    /// The store's audience for a stored campaign: a segment's is the filter copied into it when it was created.
    func audience(_ campaign: Campaign) throws -> Audience {
        switch CampaignSpec(campaign).audience {
        case .all: return .all
        case .userIDs(let ids): return .userIDs(ids)
        case .segment:
            guard let json = campaign.audience["filter"], let filter = try? SegmentFilter(json: json) else {
                throw StoreError(.database, "campaign \(campaign.id) has a segment filter this version cannot read")
            }
            return .segment(filter)
        }
    }
}
