import HeraldModel
import HeraldStore

/// Campaigns: written as drafts, launched, paused, resumed, cancelled. What a launch sends goes out through the
/// fan-out (`CampaignFanOut`, run by `CampaignRunner`), or on each visit to its geofences (`GeofenceService`).
package struct CampaignService: Sendable {
    let store: Store
    let clock: WallClock

    /// The service over `store`.
    package init(store: Store, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Creates a draft of `spec` for `business`. What it names must be the business's: its survey, segment and
    /// geofences (not found otherwise), and the users of a `user_ids` audience (unknown ones are refused, as news
    /// refuses them).
    package func create(_ spec: CampaignSpec, business: Business) throws -> Campaign {
        let now = clock.now()
        if case .scheduled(let at?, _) = spec.trigger { try Self.refusePast(at, now: now) }
        return try store.transaction { tx in
            var survey: SurveyDefinition?
            if let surveyID = spec.message.surveyID {
                guard let stored = try tx.surveys.find(businessID: business.id, id: surveyID) else {
                    throw DomainError(.notFound, field: "message.survey_id", "survey not found")
                }
                survey = try? SurveyDefinition(json: stored.definition)
            }
            if let offerID = spec.message.offerID, try tx.offers.find(businessID: business.id, id: offerID) == nil {
                throw DomainError(.notFound, field: "message.offer_id", "offer not found")
            }
            var audience = spec.audienceJSON
            switch spec.audience {
            case .segment(let id):
                guard let segment = try tx.segments.find(businessID: business.id, id: id) else {
                    throw DomainError(.notFound, field: "audience.segment_id", "segment not found")
                }
                // The filter is the campaign's from now on: a segment edited or deleted later changes nothing.
                audience = .object([("segment_id", .int(id)), ("filter", segment.filter.json)])
            case .userIDs(let ids):
                for id in ids where try tx.users.find(businessID: business.id, id: id) == nil {
                    throw DomainError(.invalid, field: "audience.user_ids", "user \(id) not found")
                }
            case .all:
                break
            }
            if case .geofence(let ids, _) = spec.trigger {
                for id in ids where try tx.geofences.find(businessID: business.id, id: id) == nil {
                    throw DomainError(.invalid, field: "trigger.geofence_ids", "geofence \(id) not found")
                }
            }
            let startAt: Timestamp?
            if case .scheduled(let at, _) = spec.trigger { startAt = at } else { startAt = nil }
            return try tx.campaigns.insert(
                Campaign(
                    id: 0, businessID: business.id, name: spec.name, message: spec.template(survey: survey).json,
                    audience: audience, channels: spec.channels.map(\.rawValue), trigger: spec.triggerJSON,
                    limits: spec.limitsJSON, sandbox: spec.sandbox, status: .draft, startAt: startAt, createdAt: now,
                    updatedAt: now))
        }
    }

    /// Launches a draft, or resumes a paused campaign: it answers at once; the fan-out sends from then on (from
    /// where it stopped, for a resumed one). A scheduled one waits for its time; a draft whose time has passed is
    /// refused (it would send at once, not when it said).
    package func launch(business: Business, id: Int64) throws -> Campaign {
        try move(business: business, id: id, from: [.draft, .paused], to: .running, launched: true)
    }

    /// Pauses a running campaign: nothing more goes out until it is launched again.
    package func pause(business: Business, id: Int64) throws -> Campaign {
        try move(business: business, id: id, from: [.running], to: .paused)
    }

    /// Cancels a campaign for good: what has not gone out never does (queued pushes are skipped when claimed).
    package func cancel(business: Business, id: Int64) throws -> Campaign {
        try move(business: business, id: id, from: [.draft, .running, .paused], to: .cancelled, finished: true)
    }

    private func move(
        business: Business, id: Int64, from: [Campaign.Status], to status: Campaign.Status, launched: Bool = false,
        finished: Bool = false
    ) throws -> Campaign {
        let now = clock.now()
        return try store.transaction { tx in
            guard let campaign = try tx.campaigns.find(businessID: business.id, id: id) else {
                throw DomainError.notFound("campaign")
            }
            if launched, campaign.status == .draft, let start = campaign.startAt {
                try Self.refusePast(start, now: now)
            }
            guard
                try tx.campaigns.changeStatus(
                    id: id, from: from, to: status, at: now, launched: launched, finished: finished)
            else {
                if campaign.status == status { return campaign }  // asked twice: done already
                throw DomainError(.conflict, field: "status", "the campaign is \(campaign.status)")
            }
            return try tx.campaigns.find(businessID: business.id, id: id)!
        }
    }

    /// Refuses a scheduled start before `now`: the campaign would go out at once, not when it says.
    private static func refusePast(_ at: Timestamp, now: Timestamp) throws {
        guard at < now else { return }
        throw DomainError(
            .invalid, field: "trigger.at",
            "is in the past (\(at.iso8601), now \(now.iso8601)): a scheduled campaign starts at a time to come")
    }

    /// A page of `businessID`'s campaigns.
    package func list(businessID: Int64, limit: Int, offset: Int) throws -> [Campaign] {
        try store.read { try $0.campaigns.all(businessID: businessID, limit: limit, offset: offset) }
    }

    /// The campaign `id` of `businessID` with its counters (`targeted`, `sent`, …), or nil.
    package func find(businessID: Int64, id: Int64) throws -> (campaign: Campaign, counters: [String: Int64])? {
        try store.read { tx in
            guard let campaign = try tx.campaigns.find(businessID: businessID, id: id) else { return nil }
            return (campaign, try tx.campaigns.counters(campaignID: id))
        }
    }
}
