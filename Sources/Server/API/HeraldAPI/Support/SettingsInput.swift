import HeraldModel
import HeraldEntities

/// What the admin API accepts as a business's loyalty settings: each field given replaces its value, each is
/// checked here; whether the offers it names are the business's is the domain's to say.
enum SettingsInput {
    /// `current` with the fields of `body` applied; problems added to `errors`.
    static func settings(_ body: JSON, over current: BusinessSettings, _ errors: inout FieldErrors) -> BusinessSettings
    {
        var settings = current
        errors.refuseUnknown(
            body,
            known: [
                "conversion_threshold", "conversion_kind", "conversion_currency_amount", "conversion_offer_id",
                "welcome_offer_id", "offer_reminder_lead_seconds", "offer_reminder_lead_hours", "membership_levels",
                "import_trusted",
            ], prefix: "")
        if let value = body["import_trusted"] {
            if let trusted = value.boolValue {
                settings.importTrusted = trusted
            } else {
                errors.add("import_trusted", "must be true or false")
            }
        }
        if let value = body["conversion_threshold"] {
            if let number = value.int64Value, number >= 0, number <= 10_000_000 {
                settings.conversionThreshold = number
            } else {
                errors.add("conversion_threshold", "must be a whole number of points (0 turns conversion off)")
            }
        }
        if let value = body["conversion_kind"] {
            if let kind = value.stringValue, ["reward", "currency"].contains(kind) {
                settings.conversionKind = kind
            } else {
                errors.add("conversion_kind", "must be reward or currency")
            }
        }
        if let value = body["conversion_currency_amount"] {
            settings.conversionCurrencyAmount =
                POSInput.amount(value, field: "conversion_currency_amount", &errors) ?? .zero
        }
        for (field, keyPath) in [
            ("conversion_offer_id", \BusinessSettings.conversionOfferID), ("welcome_offer_id", \.welcomeOfferID),
        ] {
            guard let value = body[field] else { continue }
            if value.isNull {
                settings[keyPath: keyPath] = nil
            } else if let id = POSInput.id(value) {
                settings[keyPath: keyPath] = id
            } else {
                errors.add(field, "must be the id of one of this business's offers")
            }
        }
        if let value = body["offer_reminder_lead_seconds"] {
            if let seconds = value.int64Value, seconds >= 0, seconds <= 90 * 86_400 {
                settings.offerReminderLeadSeconds = seconds
            } else {
                errors.add("offer_reminder_lead_seconds", "must be a whole number of seconds from 0 (off) to 7776000")
            }
        }
        if let value = body["offer_reminder_lead_hours"] {
            if let hours = value.doubleValue, hours >= 0, hours <= 24 * 90 {
                settings.offerReminderLeadSeconds = Int64(hours * 3600)
            } else {
                errors.add("offer_reminder_lead_hours", "must be a number of hours from 0 (off) to 2160")
            }
        }
        if let value = body["membership_levels"] {
            if let levels = membershipLevels(value) {
                settings.membershipLevels = levels
            } else {
                errors.add(
                    "membership_levels",
                    "must be 1 to 20 objects {name, from_points}: names of 1 to 50 characters, the first level from 0 "
                        + "points, each next from more points than the one before")
            }
        }
        return settings
    }

    /// `[{"name","from_points"}]` checked: 1 to 20 levels, names of 1–50 characters, from 0 upwards, ascending.
    static func membershipLevels(_ value: JSON) -> [MembershipLevel]? {
        guard let items = value.arrayValue, (1...20).contains(items.count) else { return nil }
        var levels: [MembershipLevel] = []
        for item in items {
            guard let name = item["name"]?.stringValue?.trimmingCharacters(in: " "), (1...50).contains(name.count),
                !name.contains(where: \.isNewline), let from = item["from_points"]?.int64Value,
                from == 0 ? levels.isEmpty : (levels.last.map { $0.fromPoints < from } ?? false)
            else { return nil }
            levels.append(MembershipLevel(name: name, fromPoints: from))
        }
        return levels
    }
}
