import Foundation
import HeraldDomain
import HeraldHTTPServer
import HeraldModel
import HeraldEntities

/// What the admin API accepts for a campaign (docs/openapi.json): every field checked, every unknown field refused by
/// name (a field ignored is a setting silently lost), all problems answered at once.
enum CampaignInput {
    static let fields: Set<String> = ["name", "message", "audience", "channels", "trigger", "limits", "sandbox"]
    static let messageFields: Set<String> = ["headline", "body", "media", "cta", "survey_id", "offer_id"]
    static let limitFields: Set<String> = [
        "cooldown_seconds", "max_per_install", "throttle_per_minute", "quiet_hours", "frequency_cap",
    ]

    /// The campaign `body` describes; 422 with every problem otherwise.
    static func spec(_ body: JSON, admin: AdminAccess) throws -> CampaignSpec {
        var errors = FieldErrors()
        errors.refuseUnknown(body, known: fields, prefix: "")
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        let message = Self.message(body["message"], admin: admin, &errors)
        let audience = Self.audience(body["audience"], &errors)
        let channels = Self.channels(body["channels"], &errors)
        let trigger = Self.trigger(body["trigger"], &errors)
        let limits = Self.limits(body["limits"], &errors)
        var sandbox = false
        if let value = body["sandbox"], !value.isNull {
            if let flag = value.boolValue { sandbox = flag } else { errors.add("sandbox", "must be true or false") }
        }
        try errors.check()
        return CampaignSpec(
            name: name!, message: message!, audience: audience!, channels: channels!, trigger: trigger!,
            limits: limits, sandbox: sandbox)
    }

    static func object(_ value: JSON?, _ field: String, _ errors: inout FieldErrors, required: Bool = true) -> JSON? {
        guard let value, !value.isNull else {
            if required { errors.add(field, "can't be blank") }
            return nil
        }
        guard value.objectValue != nil else {
            errors.add(field, "must be an object")
            return nil
        }
        return value
    }

    static func message(_ value: JSON?, admin: AdminAccess, _ errors: inout FieldErrors) -> CampaignSpec.Message? {
        guard let object = object(value, "message", &errors) else { return nil }
        errors.refuseUnknown(object, known: messageFields, prefix: "message.")
        let headline = AdminInput.requiredString(object, "headline", max: 200, &errors, prefix: "message.")
        let body = AdminInput.requiredString(object, "body", max: 2000, &errors, prefix: "message.", shape: .paragraph)
        var media: MessageMedia?
        if let value = object["media"], !value.isNull {
            media = MessageMedia(json: value)
            if let found = media {
                if found.type != .youtube { admin.checkMediaURL(found.url, field: "message.media.url", &errors) }
                if let thumbnail = found.thumbnailURL {
                    admin.checkMediaURL(thumbnail, field: "message.media.thumbnail_url", &errors)
                }
                if !found.type.isKnown {
                    errors.add(
                        "message.media.type",
                        "must be one of " + MessageMediaType.allKnown.map(\.rawValue).joined(separator: ", "))
                } else if found.type == .youtube, found.youTubeVideoID == nil {
                    errors.add(
                        "message.media.url",
                        "must be a YouTube video link (youtube.com/watch?v=…, youtu.be/…, youtube.com/embed/…)")
                } else if found.type.isAttachable, found.attachment == nil {
                    // The push's ab.att takes its type from the file's: iOS attaches only these.
                    errors.add(
                        "message.media.url",
                        "must name a file iOS can attach to a notification as \(found.type.rawValue): its name must "
                            + "end in ." + found.type.attachmentTypes.joined(separator: ", ."))
                }
                if let attachment = found.attachment {
                    admin.hostedMedia.check(attachment, field: "message.media", &errors)
                }
            } else {
                errors.add(
                    "message.media",
                    "must be {type, url, thumbnail_url?} with type one of image, video, audio, youtube, application, "
                        + "text, file")
            }
        }
        var cta: CallToAction?
        if let value = object["cta"], !value.isNull {
            cta = CallToAction(json: value)
            if let url = cta?.url, !isLink(url) {
                errors.add("message.cta.url", "must be an http(s) URL or an app link (not javascript:, data: or file:)")
            } else if cta == nil {
                errors.add("message.cta", "must be {label?, url}")
            } else if let label = cta?.label, label.count > 100 {
                errors.add("message.cta.label", "is too long (maximum is 100 characters)")
            } else if let label = cta?.label, let problem = DisplayText.problem(label, .line) {
                errors.add("message.cta.label", problem)
            }
        }
        var surveyID: Int64?
        if let value = object["survey_id"], !value.isNull {
            surveyID = POSInput.id(value)
            if surveyID == nil { errors.add("message.survey_id", "must be a survey id") }
        }
        var offerID: Int64?
        if let value = object["offer_id"], !value.isNull {
            offerID = POSInput.id(value)
            if offerID == nil { errors.add("message.offer_id", "must be an offer id") }
        }
        guard let headline, let body else { return nil }
        return CampaignSpec.Message(
            headline: headline, body: body, media: media, cta: cta, surveyID: surveyID, offerID: offerID)
    }

    /// A call to action's link: http(s), or an app's own scheme (`burgerco://menu`) — never one that runs or
    /// reads something where it opens.
    static func isLink(_ text: String) -> Bool {
        guard text.count <= 2000, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let scheme = URLComponents(string: text)?.scheme?.lowercased()
        else { return false }
        if scheme == "http" || scheme == "https" { return MediaInput.isWebURL(text) }
        return !["javascript", "data", "file", "vbscript", "intent", "content", "about", "blob"].contains(scheme)
    }

    static func audience(_ value: JSON?, _ errors: inout FieldErrors) -> CampaignSpec.Audience? {
        guard let object = object(value, "audience", &errors) else { return nil }
        errors.refuseUnknown(object, known: ["segment_id", "user_ids", "all"], prefix: "audience.")
        let given = ["segment_id", "user_ids", "all"].filter { object[$0].map { !$0.isNull } ?? false }
        guard given.count == 1 else {
            errors.add("audience", "must name exactly one of segment_id, user_ids or all")
            return nil
        }
        switch given[0] {
        case "segment_id":
            guard let id = object["segment_id"].flatMap(POSInput.id) else {
                errors.add("audience.segment_id", "must be a segment id")
                return nil
            }
            return .segment(id)
        case "user_ids":
            guard let items = object["user_ids"]?.arrayValue, (1...10_000).contains(items.count) else {
                errors.add("audience.user_ids", "must be a list of 1 to 10000 user ids")
                return nil
            }
            let ids = items.compactMap(POSInput.id)
            guard ids.count == items.count else {
                errors.add("audience.user_ids", "must be a list of user ids")
                return nil
            }
            var seen = Set<Int64>()
            return .userIDs(ids.filter { seen.insert($0).inserted })
        default:
            guard object["all"]?.boolValue == true else {
                errors.add("audience.all", "must be true")
                return nil
            }
            return .all
        }
    }

    static func channels(_ value: JSON?, _ errors: inout FieldErrors) -> [CampaignSpec.Channel]? {
        guard let items = value?.arrayValue, !items.isEmpty else {
            errors.add("channels", "must be a non-empty list of push, pull, inbox")
            return nil
        }
        var channels: [CampaignSpec.Channel] = []
        for item in items {
            guard let name = item.stringValue, CampaignSpec.Channel.all.map(\.rawValue).contains(name) else {
                errors.add("channels", "must be a list of push, pull, inbox")
                return nil
            }
            if !channels.contains(CampaignSpec.Channel(name)) { channels.append(CampaignSpec.Channel(name)) }
        }
        return channels
    }

    static func trigger(_ value: JSON?, _ errors: inout FieldErrors) -> CampaignSpec.Trigger? {
        guard let object = object(value, "trigger", &errors) else { return nil }
        errors.refuseUnknown(object, known: ["type", "at", "local_time", "geofence_ids", "event"], prefix: "trigger.")
        switch object["type"]?.stringValue {
        case "now":
            return .now
        case "scheduled":
            var at: Timestamp?
            if let value = object["at"], !value.isNull {
                at = value.stringValue.flatMap(Timestamp.init(iso8601:))
                if at == nil {
                    errors.add("trigger.at", "must be an ISO 8601 time like 2026-12-31T18:00:00Z")
                } else if let time = at, let year = Int(time.iso8601.prefix(4)), !(2000...2099).contains(year) {
                    errors.add("trigger.at", "must be a time in the years 2000 to 2099")
                    at = nil
                }
            }
            var local: LocalTime?
            if let value = object["local_time"], !value.isNull {
                local = value.stringValue.flatMap(LocalTime.init)
                if local == nil { errors.add("trigger.local_time", "must be a time of day HH:MM (24-hour)") }
            }
            if object["at"] == nil && object["local_time"] == nil {
                errors.add("trigger", "a scheduled trigger needs at, local_time, or both")
            }
            return .scheduled(at: at, localTime: local)
        case "geofence":
            guard let items = object["geofence_ids"]?.arrayValue, (1...100).contains(items.count),
                case let ids = items.compactMap(POSInput.id), ids.count == items.count
            else {
                errors.add("trigger.geofence_ids", "must be a list of 1 to 100 geofence ids")
                return nil
            }
            let event = object["event"]?.stringValue ?? "enter"
            guard ["enter", "exit"].contains(event) else {
                errors.add("trigger.event", "must be enter or exit")
                return nil
            }
            return .geofence(ids: Array(Set(ids)).sorted(), event: event)
        default:
            errors.add("trigger.type", "must be now, scheduled or geofence")
            return nil
        }
    }

    static func limits(_ value: JSON?, _ errors: inout FieldErrors) -> CampaignSpec.Limits {
        var limits = CampaignSpec.Limits()
        guard let object = object(value, "limits", &errors, required: false) else { return limits }
        errors.refuseUnknown(object, known: limitFields, prefix: "limits.")
        func whole(_ key: String, _ range: ClosedRange<Int64>) -> Int64? {
            guard let value = object[key], !value.isNull else { return nil }
            guard let number = value.int64Value, range.contains(number) else {
                errors.add("limits." + key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return number
        }
        limits.cooldownSeconds = whole("cooldown_seconds", 0...31_536_000)
        limits.maxPerInstall = whole("max_per_install", 1...1_000_000).map { Int($0) }
        limits.throttlePerMinute = whole("throttle_per_minute", 1...10_000_000).map { Int($0) }
        if let quiet = Self.object(object["quiet_hours"], "limits.quiet_hours", &errors, required: false) {
            errors.refuseUnknown(quiet, known: ["start", "end"], prefix: "limits.quiet_hours.")
            let start = quiet["start"]?.stringValue.flatMap(LocalTime.init)
            let end = quiet["end"]?.stringValue.flatMap(LocalTime.init)
            if start == nil { errors.add("limits.quiet_hours.start", "must be a time of day HH:MM (24-hour)") }
            if end == nil { errors.add("limits.quiet_hours.end", "must be a time of day HH:MM (24-hour)") }
            if let start, let end {
                if start == end { errors.add("limits.quiet_hours", "start and end must differ") }
                limits.quietHours = (start, end)
            }
        }
        if let cap = Self.object(object["frequency_cap"], "limits.frequency_cap", &errors, required: false) {
            errors.refuseUnknown(cap, known: ["count", "period_hours"], prefix: "limits.frequency_cap.")
            let count = cap["count"]?.int64Value
            let hours = cap["period_hours"]?.int64Value
            if count.map({ !(1...1000).contains($0) }) ?? true {
                errors.add("limits.frequency_cap.count", "must be a whole number from 1 to 1000")
            }
            if hours.map({ !(1...8760).contains($0) }) ?? true {
                errors.add("limits.frequency_cap.period_hours", "must be a whole number of hours from 1 to 8760")
            }
            if let count, let hours { limits.frequencyCap = (Int(count), Int(hours)) }
        }
        return limits
    }
}
