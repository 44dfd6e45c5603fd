import HeraldModel

extension BusinessSettings {
    /// The settings as a JSON object (how the SQL store keeps them, and how the admin API shows them).
    public var json: JSON {
        .object([
            ("conversion_threshold", .int(conversionThreshold)),
            ("conversion_kind", .string(conversionKind)),
            ("conversion_currency_amount", .double(conversionCurrencyAmount)),
            ("conversion_offer_id", JSON(conversionOfferID)),
            ("offer_reminder_lead_seconds", .int(offerReminderLeadSeconds)),
            ("welcome_offer_id", JSON(welcomeOfferID)),
        ])
    }

    /// Settings read from `json`; missing keys keep their defaults.
    public init(json: JSON) {
        self.init()
        if let value = json["conversion_threshold"]?.int64Value { conversionThreshold = value }
        if let value = json["conversion_kind"]?.stringValue { conversionKind = value }
        if let value = json["conversion_currency_amount"]?.doubleValue { conversionCurrencyAmount = value }
        conversionOfferID = json["conversion_offer_id"]?.int64Value
        if let value = json["offer_reminder_lead_seconds"]?.int64Value { offerReminderLeadSeconds = value }
        welcomeOfferID = json["welcome_offer_id"]?.int64Value
    }
}

extension Dictionary where Key == String, Value == String {
    /// A string map as a JSON object with sorted keys.
    var json: JSON { .object(keys.sorted().map { (key: $0, value: .string(self[$0]!)) }) }

    /// The string members of a JSON object.
    init(json: JSON) {
        self.init()
        for pair in json.objectValue ?? [] {
            if let value = pair.value.stringValue { self[pair.key] = value }
        }
    }
}
