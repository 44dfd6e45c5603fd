/// A counter of a campaign's report, as `campaign_stats.metric` names it. Each is kept incrementally, in the
/// transaction of what it counts, so a report reads fifteen rows whatever the campaign's size.
///
/// ```swift
/// try tx.campaigns.count(.directOpens, campaignID: entry.campaignID!)
/// try tx.campaigns.counters(campaignID: id)[CampaignMetric.sent.rawValue]
/// ```
///
/// Who counts what: the fan-out `targeted`, `sent` and `granted`, the delivery queue `delivered` (Apple or Google
/// accepted the push) and `failed`, the device events and Punchh apps' read marks the lifecycle ones, redemptions
/// `redeemed`. `opened` counts messages opened either way, so it is
/// always `direct_opens + influenced_opens`.
package struct CampaignMetric: Sendable, Hashable, CustomStringConvertible {
    /// The name stored and shown.
    package let rawValue: String
    /// The metric named `rawValue`.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Devices (or inboxes) the campaign's audience resolved to.
    package static let targeted = CampaignMetric("targeted")
    /// Messages written for them (and, for push, queued).
    package static let sent = CampaignMetric("sent")
    /// Pushes Apple or Google accepted.
    package static let delivered = CampaignMetric("delivered")
    /// Pushes that failed for good.
    package static let failed = CampaignMetric("failed")
    /// Messages the SDK first saw (`notification.received`).
    package static let received = CampaignMetric("received")
    /// Messages the notification screen showed.
    package static let displayed = CampaignMetric("displayed")
    /// Messages opened, directly or influenced: `direct_opens + influenced_opens`.
    package static let opened = CampaignMetric("opened")
    /// Messages opened from their system notification (`notification.opened`).
    package static let directOpens = CampaignMetric("direct_opens")
    /// Messages whose device opened the app within the influence window after their delivery, without tapping them.
    package static let influencedOpens = CampaignMetric("influenced_opens")
    /// Messages whose call to action was followed.
    package static let ctaClicked = CampaignMetric("cta_clicked")
    /// Messages whose screen was closed.
    package static let dismissed = CampaignMetric("dismissed")
    /// Messages whose media was played.
    package static let mediaViewed = CampaignMetric("media_viewed")
    /// Messages whose media played to the end.
    package static let mediaCompleted = CampaignMetric("media_completed")
    /// Surveys opened.
    package static let surveyStarted = CampaignMetric("survey_started")
    /// Surveys answered.
    package static let surveySubmitted = CampaignMetric("survey_submitted")
    /// Users granted the campaign's offer.
    package static let granted = CampaignMetric("granted")
    /// Rewards the campaign granted that were redeemed.
    package static let redeemed = CampaignMetric("redeemed")

    /// Pushes queued for its messages, one per device (not in the report's list: what its pace waits on, less
    /// `delivered` and `failed`).
    package static let pushes = CampaignMetric("pushes")

    /// Every metric of the report, in the order the report lists them.
    package static let report: [CampaignMetric] = [
        .targeted, .sent, .delivered, .failed, .received, .displayed, .opened, .directOpens, .influencedOpens,
        .ctaClicked, .dismissed, .mediaViewed, .mediaCompleted, .surveyStarted, .surveySubmitted, .granted, .redeemed,
    ]

    /// The `source` of a reward a campaign granted (`campaign:<id>`): what its redemption is counted by.
    package static func rewardSource(campaignID: Int64) -> String { "campaign:\(campaignID)" }

    /// The campaign that granted a reward of `source`, if one did.
    package static func campaignID(rewardSource source: String) -> Int64? {
        source.hasPrefix("campaign:") ? Int64(source.dropFirst("campaign:".count)) : nil
    }

    /// The name.
    package var description: String { rawValue }
}
