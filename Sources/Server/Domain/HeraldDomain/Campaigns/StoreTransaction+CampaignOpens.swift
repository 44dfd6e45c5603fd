import HeraldModel
import HeraldStore

extension StoreTransaction {
    /// `entry` was opened from its push — the SDK's `notification.opened`, or a Punchh app marking it read with
    /// `app_open_via_push` — at `time`: a direct open of its campaign's message, counted once. An open counted as
    /// influenced before moves to direct, so `opened` stays `direct_opens + influenced_opens`.
    func countDirectOpen(of entry: InboxEntry, at time: Timestamp) throws {
        guard let campaignID = entry.draft.campaignID,
            try inbox.reachMilestone(notificationID: entry.id, type: CampaignMetric.directOpens.rawValue, at: time)
        else { return }
        try campaigns.count(.directOpens, campaignID: campaignID)
        if try inbox.reachMilestone(notificationID: entry.id, type: CampaignMetric.opened.rawValue, at: time) {
            try campaigns.count(.opened, campaignID: campaignID)
        } else if try inbox.hasMilestone(notificationID: entry.id, type: CampaignMetric.influencedOpens.rawValue) {
            try campaigns.count(.influencedOpens, by: -1, campaignID: campaignID)
        }
    }
}
