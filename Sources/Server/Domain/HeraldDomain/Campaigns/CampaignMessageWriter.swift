import HeraldModel
import HeraldStore

/// Writes one campaign's messages inside a transaction, applying its timing and limits, through
/// `NotificationService.publish` (the one writer of entries and push jobs).
///
/// What a device gets depends on what runs on it:
/// - **An SDK install** gets the campaign's message addressed to it: pushed in the SDK's shape (`herald`), handed to
///   its pull, or both; the survey's questions travel in the message.
/// - **A device of the Punchh API** (an app written for Punchh's mobile API, signed in) gets its user's entry — one
///   per user, in their inbox when the campaign uses it — pushed as Punchh's own pushes are: `aps.badge` (the unread
///   count at send time), `n` (the entry, which the app marks read — in the inbox or not), `u`; for a survey campaign
///   `f`, `p` (the user's last check-in, at the beacon's location for a beacon visit) and `s` (a user survey made for
///   them, about that location, fetched by the app); for an offer campaign `r` (the reward granted them).
///
/// Each user the campaign reaches is granted its offer once, whichever devices they have: their entry carries the
/// reward, and the entry is unique per campaign, user and trigger, so a relaunch or a batch written again after a
/// crash grants nothing twice.
struct CampaignMessageWriter {
    let campaign: Campaign
    let spec: CampaignSpec
    let business: Business
    let notifications: NotificationService
    let tx: StoreTransaction
    let now: Timestamp
    /// Its entries' title: the campaign's headline as stored, read from its message once, not once per target.
    private let title: String
    /// The survey it asks, read once.
    private let survey: Survey?
    /// The offer it grants, read once.
    private let offer: Offer?
    /// The location of the visit that triggered it (a beacon's), when one did: a survey asks about that visit,
    /// not the user's last check-in elsewhere.
    var visitLocationID: Int64?

    init(
        campaign: Campaign, spec: CampaignSpec, business: Business, notifications: NotificationService,
        tx: StoreTransaction, now: Timestamp
    ) throws {
        self.campaign = campaign
        self.spec = spec
        self.business = business
        self.notifications = notifications
        self.tx = tx
        self.now = now
        title = HeraldMessage(json: campaign.message)?.headline ?? spec.message.headline
        survey = try spec.message.surveyID.flatMap { try tx.surveys.find(businessID: business.id, id: $0) }
        offer = try spec.message.offerID.flatMap { try tx.offers.find(businessID: business.id, id: $0) }
    }

    /// The campaign messages `target` got since `since` (of this campaign only, when `onlyThis`), and when the
    /// newest was made: those addressed to the device, or — for a Punchh app's device, which gets its user's
    /// entries — its user's.
    private func messages(to target: AudienceTarget, onlyThis: Bool, since: Timestamp) throws -> (
        count: Int, latest: Timestamp?
    ) {
        let campaignID = onlyThis ? campaign.id : nil
        if let userID = target.userID, !target.isInstall {
            return try tx.campaigns.messages(toUser: userID, campaignID: campaignID, since: since)
        }
        return try tx.campaigns.messages(toDevice: target.deviceID, campaignID: campaignID, since: since)
    }

    /// Whether a frequency cap across campaigns keeps `target` from another message now.
    func capped(_ target: AudienceTarget) throws -> Bool {
        guard let cap = spec.limits.frequencyCap else { return false }
        let since = now.adding(.seconds(-Int64(cap.periodHours) * 3600))
        return try messages(to: target, onlyThis: false, since: since).count >= cap.count
    }

    /// Whether this campaign's own limits (cooldown, most per install) let `target` have it again now.
    func allowedAgain(_ target: AudienceTarget) throws -> Bool {
        let limits = spec.limits
        if let max = limits.maxPerInstall,
            try messages(to: target, onlyThis: true, since: Timestamp(milliseconds: 0)).count >= max
        {
            return false
        }
        if let cooldown = limits.cooldownSeconds,
            let latest = try messages(to: target, onlyThis: true, since: now.adding(.seconds(-cooldown))).latest,
            latest > now.adding(.seconds(-cooldown))
        {
            return false
        }
        return true
    }

    /// When `target`'s message goes out: not before `start`; at the campaign's local time in the device's zone;
    /// the `position`-th of the campaign no sooner than its throttle allows; never in the device's quiet hours.
    func dueTime(for target: AudienceTarget, start: Timestamp, position: Int64) -> Timestamp {
        let local = LocalClock(timeZone: target.timeZone)
        var due = max(start, now)
        if case .scheduled(_, let time?) = spec.trigger { due = local.next(time, atOrAfter: due) }
        if let throttle = spec.limits.throttlePerMinute, throttle > 0 {
            due = max(due, start.adding(.seconds(60 * ((position - 1) / Int64(throttle)))))
        }
        if let quiet = spec.limits.quietHours { due = local.outside(quietHours: quiet.start, quiet.end, at: due) }
        return due
    }

    /// Writes the message to each of `targets` for `triggerKey`, going out at its `due` time (see the type's
    /// documentation for what each kind of device gets), many rows a statement. Returns how many targets it
    /// reached (a message to the device, or its user's entry).
    func send(to targets: [(target: AudienceTarget, due: Timestamp)], triggerKey: String) throws -> Int {
        let channels = Set(spec.channels)
        let inbox = channels.contains(.inbox)
        var reached = [Bool](repeating: false, count: targets.count)
        var publications: [Publication] = []
        publications.reserveCapacity(targets.count)
        // Each user's entry written in this batch (by its publication), and the devices of users whose entry an
        // earlier batch (or trigger run) wrote.
        var userPublications: [Int64: Int] = [:]
        var laterPushes: [(entry: InboxEntry, device: (id: Int64, platform: PushPlatform), due: Timestamp)] = []
        // The users' entries earlier batches or runs wrote, read at once (not a statement per target).
        let users = Array(Set(targets.compactMap { $0.target.userID }))
        let written = try tx.campaigns.userEntries(campaignID: campaign.id, userIDs: users, triggerKey: triggerKey)
        for (index, (target, due)) in targets.enumerated() {
            let push = channels.contains(.push) && target.hasToken
            guard let userID = target.userID, !target.isInstall else {
                let pull = channels.contains(.pull) && target.isInstall
                if push || pull {
                    publications.append(
                        devicePublication(target, due: due, push: push, pull: pull, triggerKey: triggerKey))
                    reached[index] = true
                }
                continue
            }
            guard push || inbox else { continue }
            reached[index] = true
            let device = (id: target.deviceID, platform: target.platform)
            if let known = userPublications[userID] {
                if push {
                    publications[known].devices.append(device)
                    publications[known].draft.pushStyle = .alert
                }
            } else if let written = written[userID] {
                // Pushed to this device too, unless it was already (the same batch written again).
                if push,
                    try !tx.deliveries.all(notificationID: written.id).contains(where: { $0.deviceID == device.id })
                {
                    laterPushes.append((written, device, due))
                }
            } else {
                userPublications[userID] = publications.count
                publications.append(
                    try userPublication(
                        userID, due: due, pushedTo: push ? [device] : [], punchh: true, triggerKey: triggerKey))
            }
        }
        // The users reached through SDK installs: an entry in their inbox, and the offer granted once.
        if inbox || offer != nil {
            for (index, (target, due)) in targets.enumerated() where target.isInstall {
                guard let userID = target.userID, userPublications[userID] == nil, written[userID] == nil else {
                    continue
                }
                userPublications[userID] = publications.count
                publications.append(
                    try userPublication(userID, due: due, pushedTo: [], punchh: false, triggerKey: triggerKey))
                if inbox { reached[index] = true }
            }
        }
        let entries = try notifications.publish(publications, in: tx, at: now)
        for (publication, entry) in zip(publications, entries) {
            if let rewardID = publication.draft.rewardID {
                try tx.offers.setNotification(rewardID: rewardID, notificationID: entry.id)
            }
        }
        for later in laterPushes {
            try notifications.push(later.entry, to: [later.device], dueAt: later.due, in: tx, at: now)
        }
        return reached.count(where: { $0 })
    }

    /// The entry addressed to one device, with its push job due at `due`.
    func deviceEntry(for target: AudienceTarget, due: Timestamp, push: Bool, pull: Bool, triggerKey: String) throws
        -> InboxEntry
    {
        try notifications.publish(
            [devicePublication(target, due: due, push: push, pull: pull, triggerKey: triggerKey)], in: tx, at: now)[0]
    }

    /// The message addressed to `target`'s device: pushed to it if `push`, handed to its pull if `pull`.
    private func devicePublication(_ target: AudienceTarget, due: Timestamp, push: Bool, pull: Bool, triggerKey: String)
        -> Publication
    {
        Publication(
            NotificationDraft(
                businessID: business.id, userID: target.userID, kind: .campaign, event: "campaign", title: title,
                body: spec.message.body, media: spec.message.media?.attachment, pushStyle: push ? .alert : .none,
                visibleInInbox: false, campaignID: campaign.id, triggerKey: triggerKey, deviceID: target.deviceID,
                pullable: pull),
            at: due, pushedTo: push ? [(target.deviceID, target.platform)] : [])
    }

    /// `userID`'s entry of the campaign: in their inbox when the campaign uses it, pushed to `devices`, carrying
    /// the offer granted them; for a Punchh app's user (`punchh`), the user survey made for them too.
    private func userPublication(
        _ userID: Int64, due: Timestamp, pushedTo devices: [(id: Int64, platform: PushPlatform)], punchh: Bool,
        triggerKey: String
    ) throws -> Publication {
        var extras: [(key: String, value: JSON)] = [("u", .int(userID))]
        if punchh, let survey {
            // The visit asked about: the one at the triggering location (its last check-in there, if any, gives `p`
            // and `f`), else the user's last check-in.
            let visit = try tx.checkins.latestApproved(userID: userID, locationID: visitLocationID)
            let userSurvey = try tx.surveys.send(
                survey, to: userID, locationID: visitLocationID ?? visit?.locationID, at: now)
            extras =
                LoyaltyPayload.survey(
                    firstCheckin: visit?.isFirst ?? false, points: visit?.points ?? 0, userID: userID,
                    userSurveyID: userSurvey.id
                ).objectValue ?? extras
        }
        var rewardID: Int64?
        if let offer, offer.isAvailable(at: now) {
            let reward = try tx.offers.grant(
                offer, to: userID, source: CampaignMetric.rewardSource(campaignID: campaign.id),
                expiresAt: offer.expiry(grantedAt: now), at: now)
            try tx.campaigns.count(.granted, campaignID: campaign.id)
            rewardID = reward.id
            extras.append(("r", .int(reward.id)))
        }
        return Publication(
            NotificationDraft(
                businessID: business.id, userID: userID, kind: .campaign, event: "campaign", title: title,
                body: spec.message.body, media: spec.message.media?.attachment, extras: .object(extras),
                pushStyle: devices.isEmpty ? .none : .alert, visibleInInbox: spec.channels.contains(.inbox),
                rewardID: rewardID, campaignID: campaign.id, triggerKey: triggerKey),
            at: due, pushedTo: devices)
    }
}
