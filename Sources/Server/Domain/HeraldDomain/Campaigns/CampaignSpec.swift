import HeraldModel
import HeraldStore

/// What a campaign is — its message, audience, channels, trigger and limits — as the domain reads it. The admin
/// API checks a request into one; the store keeps it as JSON (`Campaign`), read back with `init(_:)`.
package struct CampaignSpec: Sendable, Equatable {
    /// What it says.
    package struct Message: Sendable, Equatable {
        /// The headline (the alert's title).
        package var headline: String
        /// The body.
        package var body: String
        /// Rich media.
        package var media: MessageMedia?
        /// A call to action.
        package var cta: CallToAction?
        /// A survey of the business it asks (the message is then a survey, its questions the survey's).
        package var surveyID: Int64?
        /// An offer of the business it grants each user it reaches, once.
        package var offerID: Int64?

        /// A message.
        package init(
            headline: String, body: String, media: MessageMedia? = nil, cta: CallToAction? = nil,
            surveyID: Int64? = nil, offerID: Int64? = nil
        ) {
            self.headline = headline
            self.body = body
            self.media = media
            self.cta = cta
            self.surveyID = surveyID
            self.offerID = offerID
        }
    }

    /// Who it is for.
    package enum Audience: Sendable, Equatable {
        /// Every device of the business.
        case all
        /// The devices of these users.
        case userIDs([Int64])
        /// The devices a saved segment matches.
        case segment(Int64)
    }

    /// How it reaches a device.
    package struct Channel: Sendable, Hashable, CustomStringConvertible {
        /// The channel's name.
        package let rawValue: String
        /// The channel named `rawValue`.
        package init(_ rawValue: String) { self.rawValue = rawValue }
        /// A push to each device with a token.
        package static let push = Channel("push")
        /// Handed to each SDK install by its next pull.
        package static let pull = Channel("pull")
        /// An entry in each signed-in user's inbox (the Punchh API's list).
        package static let inbox = Channel("inbox")
        /// Every channel.
        package static let all: [Channel] = [.push, .pull, .inbox]
        package var description: String { rawValue }
    }

    /// When it goes out.
    package enum Trigger: Sendable, Equatable {
        /// At launch.
        case now
        /// At `at`; with `localTime`, at that time of day in each device's own time zone (the first on or after
        /// `at`, or after launch).
        case scheduled(at: Timestamp?, localTime: LocalTime?)
        /// When a device enters (or exits) one of these geofences.
        case geofence(ids: [Int64], event: String)

        /// Whether it goes out once to its whole audience (a fan-out), rather than on each visit.
        package var isOneShot: Bool {
            if case .geofence = self { return false }
            return true
        }
    }

    /// How often, and when not.
    package struct Limits: Sendable, Equatable {
        /// A device gets this campaign again only this long after the last time.
        package var cooldownSeconds: Int64?
        /// A device gets this campaign at most this many times.
        package var maxPerInstall: Int?
        /// The fan-out sends at most this many a minute.
        package var throttlePerMinute: Int?
        /// Local hours when nothing is sent (held until they end).
        package var quietHours: (start: LocalTime, end: LocalTime)?
        /// A device gets at most `count` campaign messages (of any campaign) in `periodHours`.
        package var frequencyCap: (count: Int, periodHours: Int)?

        /// No limits.
        package init(
            cooldownSeconds: Int64? = nil, maxPerInstall: Int? = nil, throttlePerMinute: Int? = nil,
            quietHours: (start: LocalTime, end: LocalTime)? = nil, frequencyCap: (count: Int, periodHours: Int)? = nil
        ) {
            self.cooldownSeconds = cooldownSeconds
            self.maxPerInstall = maxPerInstall
            self.throttlePerMinute = throttlePerMinute
            self.quietHours = quietHours
            self.frequencyCap = frequencyCap
        }

        package static func == (lhs: Limits, rhs: Limits) -> Bool {
            lhs.cooldownSeconds == rhs.cooldownSeconds && lhs.maxPerInstall == rhs.maxPerInstall
                && lhs.throttlePerMinute == rhs.throttlePerMinute && lhs.quietHours?.start == rhs.quietHours?.start
                && lhs.quietHours?.end == rhs.quietHours?.end && lhs.frequencyCap?.count == rhs.frequencyCap?.count
                && lhs.frequencyCap?.periodHours == rhs.frequencyCap?.periodHours
        }
    }

    /// Its name.
    package var name: String
    /// What it says.
    package var message: Message
    /// Who it is for.
    package var audience: Audience
    /// How it reaches them, in order.
    package var channels: [Channel]
    /// When.
    package var trigger: Trigger
    /// How often, and when not.
    package var limits: Limits
    /// A sandbox campaign: approved test devices only, its headline marked.
    package var sandbox: Bool

    /// A campaign.
    package init(
        name: String, message: Message, audience: Audience, channels: [Channel], trigger: Trigger,
        limits: Limits = Limits(), sandbox: Bool = false
    ) {
        self.name = name
        self.message = message
        self.audience = audience
        self.channels = channels
        self.trigger = trigger
        self.limits = limits
        self.sandbox = sandbox
    }
}

// MARK: - Kept as JSON

extension CampaignSpec {
    /// The message as devices receive it (its id filled in per device): a survey's questions resolved, a sandbox
    /// headline marked, `survey_id` and `offer_id` kept beside it.
    func template(survey: SurveyDefinition?) -> HeraldMessage {
        var extra: [(key: String, value: JSON)] = []
        if let surveyID = message.surveyID { extra.append(("survey_id", .int(surveyID))) }
        if let offerID = message.offerID { extra.append(("offer_id", .int(offerID))) }
        return HeraldMessage(
            id: "0", type: survey == nil ? .message : .survey,
            headline: sandboxed(message.headline), body: message.body,
            isSandbox: sandbox, media: message.media, cta: message.cta, questions: survey?.questions ?? [],
            otherFields: extra)
    }

    /// `headline` as a sandbox campaign's devices see it: marked once (an operator who wrote the mark already
    /// does not get it twice).
    func sandboxed(_ headline: String) -> String {
        guard sandbox, !headline.hasPrefix(HeraldMessage.sandboxHeadlinePrefix) else { return headline }
        return HeraldMessage.sandboxHeadlinePrefix + headline
    }

    var audienceJSON: JSON {
        switch audience {
        case .all: return ["all": true]
        case .userIDs(let ids): return .object([("user_ids", .array(ids.map { .int($0) }))])
        case .segment(let id): return .object([("segment_id", .int(id))])
        }
    }

    var triggerJSON: JSON {
        switch trigger {
        case .now: return ["type": "now"]
        case .scheduled(let at, let localTime):
            var pairs: [(key: String, value: JSON)] = [("type", "scheduled")]
            if let at { pairs.append(("at", .string(at.iso8601))) }
            if let localTime { pairs.append(("local_time", .string(localTime.description))) }
            return .object(pairs)
        case .geofence(let ids, let event):
            return .object([
                ("type", "geofence"), ("geofence_ids", .array(ids.map { .int($0) })), ("event", .string(event)),
            ])
        }
    }

    var limitsJSON: JSON {
        var pairs: [(key: String, value: JSON)] = []
        if let cooldown = limits.cooldownSeconds { pairs.append(("cooldown_seconds", .int(cooldown))) }
        if let max = limits.maxPerInstall { pairs.append(("max_per_install", .int(Int64(max)))) }
        if let throttle = limits.throttlePerMinute { pairs.append(("throttle_per_minute", .int(Int64(throttle)))) }
        if let quiet = limits.quietHours {
            pairs.append(
                (
                    "quiet_hours",
                    .object([("start", .string(quiet.start.description)), ("end", .string(quiet.end.description))])
                ))
        }
        if let cap = limits.frequencyCap {
            pairs.append(
                (
                    "frequency_cap",
                    .object([("count", .int(Int64(cap.count))), ("period_hours", .int(Int64(cap.periodHours)))])
                ))
        }
        return .object(pairs)
    }

    /// The spec a stored campaign was made from.
    package init(_ campaign: Campaign) {
        let template = HeraldMessage(json: campaign.message)
        let surveyID = template?.otherFields.first { $0.key == "survey_id" }?.value.int64Value
        let offerID = template?.otherFields.first { $0.key == "offer_id" }?.value.int64Value
        var headline = template?.headline ?? ""
        if campaign.sandbox, headline.hasPrefix(HeraldMessage.sandboxHeadlinePrefix) {
            headline.removeFirst(HeraldMessage.sandboxHeadlinePrefix.count)
        }
        let audience: Audience
        if let segment = campaign.audience["segment_id"]?.int64Value {
            audience = .segment(segment)
        } else if let ids = campaign.audience["user_ids"]?.arrayValue {
            audience = .userIDs(ids.compactMap(\.int64Value))
        } else {
            audience = .all
        }
        let trigger: Trigger
        switch campaign.trigger["type"]?.stringValue {
        case "scheduled":
            trigger = .scheduled(
                at: campaign.trigger["at"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
                localTime: campaign.trigger["local_time"]?.stringValue.flatMap(LocalTime.init))
        case "geofence":
            trigger = .geofence(
                ids: (campaign.trigger["geofence_ids"]?.arrayValue ?? []).compactMap(\.int64Value),
                event: campaign.trigger["event"]?.stringValue ?? "enter")
        default:
            trigger = .now
        }
        let limits = campaign.limits
        let quiet = limits["quiet_hours"].flatMap { quiet -> (start: LocalTime, end: LocalTime)? in
            guard let start = quiet["start"]?.stringValue.flatMap(LocalTime.init),
                let end = quiet["end"]?.stringValue.flatMap(LocalTime.init)
            else { return nil }
            return (start, end)
        }
        let cap = limits["frequency_cap"].flatMap { cap -> (count: Int, periodHours: Int)? in
            guard let count = cap["count"]?.int64Value, let hours = cap["period_hours"]?.int64Value else { return nil }
            return (Int(count), Int(hours))
        }
        self.init(
            name: campaign.name,
            message: Message(
                headline: headline, body: template?.body ?? "", media: template?.media, cta: template?.cta,
                surveyID: surveyID, offerID: offerID),
            audience: audience, channels: campaign.channels.map(Channel.init), trigger: trigger,
            limits: Limits(
                cooldownSeconds: limits["cooldown_seconds"]?.int64Value,
                maxPerInstall: limits["max_per_install"]?.int64Value.map { Int($0) },
                throttlePerMinute: limits["throttle_per_minute"]?.int64Value.map { Int($0) }, quietHours: quiet,
                frequencyCap: cap),
            sandbox: campaign.sandbox)
    }
}
