import HeraldDomain
import HeraldHTTP
import HeraldModel
import HeraldStore

/// The admin API's loyalty program: offers and their grants, the business rules (point conversion,
/// reminders, welcome offer), and surveys.
struct AdminLoyaltyController: Sendable {
    let store: Store
    let admin: AdminController
    let loyalty: LoyaltyService
    let clock: WallClock

    func register(in router: inout Router) {
        router.post("/api/admin/businesses/{id}/offers", admin.guarded(createOffer))
        router.get("/api/admin/businesses/{id}/offers/{offer_id}", admin.guarded(showOffer))
        router.post("/api/admin/businesses/{id}/offers/{offer_id}/grant", admin.guarded(grantOffer))
        router.post("/api/admin/businesses/{id}/surveys", admin.guarded(createSurvey))
        router.post("/api/admin/businesses/{id}/surveys/{survey_id}/send", admin.guarded(sendSurvey))
        router.get("/api/admin/businesses/{id}/settings", admin.guarded(showSettings))
        router.put("/api/admin/businesses/{id}/settings", admin.guarded(updateSettings))
    }

    static func json(_ offer: Offer) -> JSON {
        .object([
            ("id", .int(offer.id)), ("name", .string(offer.name)), ("description", .string(offer.description)),
            ("image_url", JSON(offer.imageURL)),
            ("media", offer.media?.json ?? .null),
            ("discount", .double(offer.discount.decimal)), ("available_from", JSON(offer.availableFrom?.iso8601)),
            ("available_until", JSON(offer.availableUntil?.iso8601)), ("expires_at", JSON(offer.expiresAt?.iso8601)),
            ("valid_days", offer.validForSeconds.map { .double(Double($0) / 86_400) } ?? .null),
            ("created_at", .string(offer.createdAt.iso8601)),
        ])
    }

    private func offerID(_ request: HTTPRequest) throws -> Int64 {
        guard let id = request.parameter("offer_id").flatMap(PathID.parse) else {
            throw HTTPError.notFound("offer not found")
        }
        return id
    }

    @Sendable func createOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var errors = FieldErrors()
        let name = AdminInput.requiredString(body, "name", max: 200, &errors)
        var description = ""
        if let value = body["description"], !value.isNull {
            if let text = value.stringValue {
                description = text
            } else {
                errors.add("description", "must be a string")
            }
        }
        if description.count > 2000 { errors.add("description", "is too long (maximum is 2000 characters)") }
        var imageURL: String?
        if let value = body["image_url"], !value.isNull {
            imageURL = value.stringValue
            if !(imageURL.map { MediaInput.isWebURL($0) } ?? false) {
                errors.add("image_url", "must be an http or https URL")
            }
        }
        var media: MediaAttachment?
        if let value = body["media"], !value.isNull { media = admin.attachment(value, field: "media", &errors) }
        let discount = POSInput.amount(body["discount"] ?? 0, field: "discount", &errors)
        func time(_ field: String) -> Timestamp? {
            guard let value = body[field], !value.isNull else { return nil }
            guard let text = value.stringValue, let time = Timestamp(iso8601: text) else {
                errors.add(field, "must be an ISO 8601 time like 2026-12-31T23:59:59Z")
                return nil
            }
            return time
        }
        let from = time("available_from")
        let until = time("available_until")
        let expires = time("expires_at")
        if let from, let until, until <= from { errors.add("available_until", "must be after available_from") }
        var validFor: Int64?
        if let value = body["valid_days"], !value.isNull {
            if let days = value.doubleValue, days > 0, days <= 3650 {
                validFor = Int64(days * 86_400)
            } else {
                errors.add("valid_days", "must be a number of days greater than 0 and at most 3650")
            }
        }
        try errors.check()
        let now = clock.now()
        let offer = try store.transaction { tx in
            try tx.offers.insert(
                Offer(
                    id: 0, businessID: business.id, name: name!, description: description, imageURL: imageURL,
                    media: media, discount: discount ?? .zero, availableFrom: from, availableUntil: until,
                    expiresAt: expires, validForSeconds: validFor, createdAt: now),
                at: now)
        }
        return .json(Self.json(offer), status: .created)
    }

    @Sendable func showOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let id = try offerID(request)
        guard let offer = try store.read({ try $0.offers.find(businessID: business.id, id: id) }) else {
            throw HTTPError.notFound("offer not found")
        }
        return .json(Self.json(offer))
    }

    /// Grants an offer to users: each grant a reward, an inbox entry and a push (`campaign_offer`).
    @Sendable func grantOffer(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        let id = try offerID(request)
        guard try store.read({ try $0.offers.find(businessID: business.id, id: id) }) != nil else {
            throw HTTPError.notFound("offer not found")
        }
        let userIDs = try AdminInput.users(body, store: store, businessID: business.id).map(\.id)
        let granted = try loyalty.grantOffer(
            business: business, offerID: id, userIDs: userIDs, source: "campaign_offer", event: .campaignOffer)
        return .json(
            .object([
                ("reward_ids", .array(granted.map { .int($0.reward.id) })),
                ("notification_ids", .array(granted.compactMap { $0.notification.map { .int($0.id) } })),
            ]), status: .accepted)
    }

    /// A survey: questions of the seed's types, checked by the same `SurveyDefinition` the SDK uses.
    @Sendable func createSurvey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        let definition: SurveyDefinition
        do {
            definition = try SurveyDefinition(json: body)
        } catch {
            var errors = FieldErrors()
            for problem in error.problems { errors.add(problem.field, problem.message) }
            try errors.check()
            throw HTTPError.invalid("survey", "is invalid")
        }
        var url: String?
        if let value = body["url"], !value.isNull {
            guard let text = value.stringValue, MediaInput.isWebURL(text) else {
                throw HTTPError.invalid("url", "must be an http or https URL (an external survey page), or left out")
            }
            url = text
        }
        let now = clock.now()
        let survey = try store.transaction { tx in
            try tx.surveys.insert(
                businessID: business.id, title: definition.title, definition: definition.json, url: url, at: now)
        }
        return .json(.object([("id", .int(survey.id)), ("title", .string(survey.title))]), status: .created)
    }

    /// Sends a survey: a user survey, an inbox entry and an `s` push per user.
    @Sendable func sendSurvey(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        guard let surveyID = request.parameter("survey_id").flatMap(PathID.parse),
            try store.read({ try $0.surveys.find(businessID: business.id, id: surveyID) }) != nil
        else { throw HTTPError.notFound("survey not found") }
        let userIDs = try AdminInput.users(body, store: store, businessID: business.id).map(\.id)
        var locationID: Int64?
        if let value = body["location_id"], !value.isNull {
            guard let id = POSInput.id(value) else { throw HTTPError.invalid("location_id", "must be a location id") }
            guard try store.read({ try $0.locations.find(businessID: business.id, id: id) }) != nil else {
                throw HTTPError.notFound("location not found")
            }
            locationID = id
        }
        // Without a location_id, each user is asked about their latest visit.
        let sent = try loyalty.sendSurvey(
            business: business, surveyID: surveyID, userIDs: userIDs, locationID: locationID)
        return .json(
            .object([
                ("user_survey_ids", .array(sent.map { .int($0.userSurvey.id) })),
                ("notification_ids", .array(sent.compactMap { $0.notification.map { .int($0.id) } })),
            ]), status: .accepted)
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

    @Sendable func showSettings(_ request: HTTPRequest) throws -> HTTPResponse {
        .json(try admin.business(request).settings.json)
    }

    /// The business rules; fields left out keep their values.
    @Sendable func updateSettings(_ request: HTTPRequest) throws -> HTTPResponse {
        let business = try admin.business(request)
        let body = try admin.object(request)
        var settings = business.settings
        var errors = FieldErrors()
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
            } else if let id = POSInput.id(value),
                try store.read({ try $0.offers.find(businessID: business.id, id: id) }) != nil
            {
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
            if let levels = Self.membershipLevels(value) {
                settings.membershipLevels = levels
            } else {
                errors.add(
                    "membership_levels",
                    "must be 1 to 20 objects {name, from_points}: names of 1 to 50 characters, the first level from 0 "
                        + "points, each next from more points than the one before")
            }
        }
        if settings.conversionThreshold > 0, settings.conversionKind == "reward", settings.conversionOfferID == nil {
            errors.add("conversion_offer_id", "is required when points convert into a reward")
        }
        try errors.check()
        try store.transaction { try $0.businesses.updateSettings(id: business.id, settings) }
        return .json(settings.json)
    }
}
