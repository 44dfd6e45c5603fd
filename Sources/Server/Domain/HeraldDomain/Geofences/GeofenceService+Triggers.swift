import HeraldModel
import HeraldStore

extension GeofenceService {
    /// A running geofence campaign a device's visit triggers, ready to be written: its writer, the device as its
    /// audience's target, and when its message is due (now, or when the device's quiet hours end).
    struct TriggeredCampaign {
        let campaign: Campaign
        let spec: CampaignSpec
        var writer: CampaignMessageWriter
        let target: AudienceTarget
        let due: Timestamp
    }

    /// The running geofence campaigns of `business` on `event` at one of `geofences` — the sandbox's or the live
    /// ones, as `sandbox` says — whose audience reaches `device` and whose cooldown, most per user and frequency
    /// cap allow it now. What an SDK install's visit and a Punchh app's beacon both trigger.
    func campaigns(
        triggeredBy event: String, at geofences: Set<Int64>, device: Device, business: Business, sandbox: Bool,
        in tx: StoreTransaction, now: Timestamp
    ) throws -> [TriggeredCampaign] {
        var triggered: [TriggeredCampaign] = []
        for campaign in try tx.campaigns.running(at: now, limit: 1000)
        where campaign.businessID == business.id && campaign.sandbox == sandbox {
            let spec = CampaignSpec(campaign)
            guard case .geofence(let ids, let trigger) = spec.trigger, trigger == event,
                ids.contains(where: geofences.contains)
            else { continue }
            let fanOut = CampaignFanOut(store: store, notifications: notifications, clock: clock)
            guard
                let target = try tx.audiences.targets(
                    businessID: business.id, audience: try fanOut.audience(campaign), sandboxOnly: sandbox,
                    after: device.id - 1, limit: 1, at: now
                ).first, target.deviceID == device.id
            else { continue }
            let writer = try CampaignMessageWriter(
                campaign: campaign, spec: spec, business: business, notifications: notifications, tx: tx, now: now)
            guard try !writer.capped(target), try writer.allowedAgain(target) else { continue }
            let due =
                spec.limits.quietHours.map {
                    LocalClock(timeZone: target.timeZone).outside(quietHours: $0.start, $0.end, at: now)
                } ?? now
            triggered.append(
                TriggeredCampaign(campaign: campaign, spec: spec, writer: writer, target: target, due: due))
        }
        return triggered
    }
}
