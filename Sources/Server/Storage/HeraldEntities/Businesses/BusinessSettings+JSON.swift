import HeraldModel

extension BusinessSettings {
    /// The settings as a JSON object (how the SQL store keeps them, and how the admin API shows them).
    package var json: JSON {
        .object([
            ("conversion_threshold", .int(conversionThreshold)),
            ("conversion_kind", .string(conversionKind)),
            ("conversion_currency_amount", .double(conversionCurrencyAmount.decimal)),
            ("conversion_offer_id", JSON(conversionOfferID)),
            ("offer_reminder_lead_seconds", .int(offerReminderLeadSeconds)),
            ("welcome_offer_id", JSON(welcomeOfferID)),
            (
                "membership_levels",
                .array(
                    membershipLevels.map {
                        .object([("name", .string($0.name)), ("from_points", .int($0.fromPoints))])
                    })
            ),
            ("import_trusted", .bool(importTrusted)),
        ])
    }

    /// Settings read from `json`; missing keys keep their defaults.
    package init(json: JSON) {
        self.init()
        if let value = json["conversion_threshold"]?.int64Value { conversionThreshold = value }
        if let value = json["conversion_kind"]?.stringValue { conversionKind = value }
        if let value = json["conversion_currency_amount"]?.doubleValue.flatMap(Money.init(decimal:)) {
            conversionCurrencyAmount = value
        }
        conversionOfferID = json["conversion_offer_id"]?.int64Value
        if let value = json["offer_reminder_lead_seconds"]?.int64Value { offerReminderLeadSeconds = value }
        welcomeOfferID = json["welcome_offer_id"]?.int64Value
        let levels = (json["membership_levels"]?.arrayValue ?? []).compactMap { level -> MembershipLevel? in
            guard let name = level["name"]?.stringValue, let from = level["from_points"]?.int64Value else { return nil }
            return MembershipLevel(name: name, fromPoints: from)
        }
        if !levels.isEmpty { membershipLevels = levels }
        if let value = json["import_trusted"]?.boolValue { importTrusted = value }
    }
}

extension Dictionary where Key == String, Value == String {
    /// A string map as a JSON object with sorted keys.
    package var json: JSON { .object(keys.sorted().map { (key: $0, value: .string(self[$0]!)) }) }

    /// The string members of a JSON object.
    package init(json: JSON) {
        self.init()
        for pair in json.objectValue ?? [] {
            if let value = pair.value.stringValue { self[pair.key] = value }
        }
    }
}
